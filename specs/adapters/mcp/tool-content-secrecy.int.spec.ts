import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../../adapters/event-store';
import { ALL_PROJECTIONS, ProjectionRunner } from '../../../projections';
import { openViewsDatabase, sqliteViews } from '../../../adapters/views';
import { connectStdio, type StdioConnection } from '../../../examples/mcp/connect';
import { scratchDir } from '../../support/scratch-dir';
import { FIRST_INVOCATION, openPortalWorld, textOf } from './support/portal-world';

/**
 * Nothing of a tool's arguments or results reaches the engine: after a run with distinctive strings
 * in both, the SQLite store (database and WAL), the views database and every log hold none of them.
 */

const USERNAME = 'zq-arg-username-7Kd2';
const PASSWORD = 'zq-arg-password-Vb91';
const BAD_PASSWORD = 'zq-arg-badpassword-Hx4e';
const UNMAPPED_ARGUMENT = 'zq-arg-unmapped-Pp3s';
const SESSION = 'zq-result-session-Lm8R';
const SECRETS = [USERNAME, PASSWORD, BAD_PASSWORD, UNMAPPED_ARGUMENT, SESSION];

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

/** Each file that holds `needle`, as UTF-8 or UTF-16 bytes. */
const filesHolding = (files: readonly string[], needle: string): string[] =>
  files.filter((file) => {
    const bytes = readFileSync(file);
    return bytes.includes(Buffer.from(needle, 'utf8')) || bytes.includes(Buffer.from(needle, 'utf16le'));
  });

type Writer = typeof process.stdout.write;

describe('tool arguments and results', () => {
  jest.setTimeout(30_000);
  let dir: string;
  const logs: string[] = [];
  const restore: (() => void)[] = [];

  beforeEach(() => {
    dir = scratchDir('mcp-secrecy');
    logs.length = 0;
    for (const stream of [process.stdout, process.stderr]) {
      const original: Writer = stream.write.bind(stream);
      const spy = jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
        logs.push(String(chunk));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as Writer);
      restore.push(() => spy.mockRestore());
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(' '));
      });
      restore.push(() => spy.mockRestore());
    }
  });

  afterEach(() => {
    for (const undo of restore.splice(0)) undo();
  });

  it('reach the model but no store file, no view and no log', async () => {
    const opened = openSqliteEventStore({ path: join(dir, 'events.sqlite') });
    if (opened.kind === 'storage_failure') throw new Error(opened.reason);
    const views = openViewsDatabase(join(dir, 'views.sqlite'));
    if ('kind' in views) throw new Error(views.reason);
    const world = await openPortalWorld({
      connect: connectStdio,
      store: opened,
      portal: { username: USERNAME, password: PASSWORD, sessionToken: SESSION },
      slowCall: { call: 3, delayMs: 2_000 },
      script: () => [
        { name: 'probe_login', arguments: { username: USERNAME, password: PASSWORD } },
        { name: 'probe_login', arguments: { username: USERNAME, password: BAD_PASSWORD } },
        { name: 'reset_portal', arguments: { note: UNMAPPED_ARGUMENT } },
        { name: 'probe_login', arguments: { username: USERNAME, password: PASSWORD }, timeout: 150 },
      ],
    });
    let serverStderr = '';
    try {
      await world.manager.advance(3);
      serverStderr = (world.connection as StdioConnection).stderr();
      await new ProjectionRunner({ store: opened, views: sqliteViews(views), projections: ALL_PROJECTIONS }).catchUp();

      // The run did what it should: the model got the portal's answer, every kind of settlement happened.
      expect(world.calls.map((call) => call.outcome)).toEqual(['succeeded', 'failed', 'refused', 'unknown']);
      expect(textOf(world.calls[0]!)).toContain(SESSION);

      const logText = [...logs, serverStderr, ...world.progress.map((p) => JSON.stringify(p))].join('\n');
      expect(serverStderr).toContain('probe_login call 3');
      for (const secret of SECRETS) expect(logText).not.toContain(secret);

      // While open, the store's recent pages are in its WAL.
      const whileOpen = filesUnder(dir);
      expect(whileOpen.some((file) => file.endsWith('-wal'))).toBe(true);
      const firstCallId = world.calls[0]!.tool_call_id;
      expect(filesHolding(whileOpen, firstCallId).length).toBeGreaterThan(0);
      expect(filesHolding(whileOpen, `${FIRST_INVOCATION}:tool=1`).some((file) => file.includes('views'))).toBe(true);
      for (const secret of SECRETS) expect(filesHolding(whileOpen, secret)).toEqual([]);
    } finally {
      await world.close();
      views.close();
      await opened.close();
    }

    const afterClose = filesUnder(dir);
    expect(filesHolding(afterClose, world.calls[0]!.tool_call_id).length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(filesHolding(afterClose, secret)).toEqual([]);
  });
});
