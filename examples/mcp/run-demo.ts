import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../adapters/event-store';
import { runMcpDemo } from './demo';

/** `tsx examples/mcp/run-demo.ts [store.sqlite]`: the MCP portal-probe example on a SQLite store. */
const main = async (): Promise<void> => {
  const path = process.argv[2] ?? join(mkdtempSync(join(tmpdir(), 'portal-probe-mcp-')), 'events.sqlite');
  const store = openSqliteEventStore({ path });
  if (store.kind === 'storage_failure') throw new Error(store.reason);
  process.stdout.write(`store: ${path}\n`);
  try {
    const run = await runMcpDemo({ store, write: (line) => process.stdout.write(`${line}\n`) });
    process.stdout.write(`the MCP server received ${run.probeCalls} probe_login calls\n`);
  } finally {
    await store.close();
  }
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
