import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { chainLink, linkOf } from '../../../domain/integrity/chain';
import { SEAL_STREAM, asSeal } from '../../../domain/integrity/seal';
import { metadataOfColumn } from '../../../adapters/event-store/sqlite/metadata-column';
import { MANIFEST, SCENARIO, cli, scratchDir } from './support/cli';

jest.setTimeout(120_000);

/** `raes-tools run` appends through the chain: every event of the SQLite file it wrote carries a link that recomputes. */
describe('raes-tools run writes a chained history', () => {
  it('links every stored event to the previous event of its stream', () => {
    const dataDir = scratchDir('run-chained');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-chained', '--data-dir', dataDir, '--json');
    expect(run.status).toBe(0);
    const db = new BetterSqlite3(join(dataDir, 'events.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT stream, revision, type, data, metadata FROM events ORDER BY position').all() as { stream: string; revision: number; type: string; data: string; metadata: string | Buffer | null }[];
    db.close();
    expect(rows.length).toBeGreaterThan(10);
    const heads = new Map<string, string>();
    for (const row of rows) {
      const link = linkOf(metadataOfColumn(row.metadata));
      expect(link).toEqual(chainLink(heads.get(row.stream) ?? null, row.stream, row.revision, row.type, JSON.parse(row.data)));
      heads.set(row.stream, link!.digest);
    }
    // The run closed with a seal over everything before it, and a later writer opens after it.
    const last = rows[rows.length - 1]!;
    expect(last.stream).toBe(SEAL_STREAM);
    expect(asSeal(JSON.parse(last.data))?.event_count).toBe(rows.length - 1);
    expect(cli('recover', '--data-dir', dataDir).status).toBe(0);
  });
});
