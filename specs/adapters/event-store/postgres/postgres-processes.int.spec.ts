import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgresEventStore } from '../../../../adapters/event-store/postgres/postgres-event-store';
import type { ReadResult, RecordedEvent } from '../../../../domain/ports/event-store';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';
import { startPostgresServer, type PostgresServer } from './support/postgres-server';

const CHILD = join(__dirname, 'children', 'append-child.ts');

const startChild = (args: readonly string[]): ChildProcess =>
  spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> =>
  new Promise((resolve) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });

const ackLines = (path: string): string[] =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];

const events = (result: ReadResult): readonly RecordedEvent[] => {
  if (result.kind !== 'read') throw new Error(result.reason);
  return result.events;
};

/** Every append is a triple with consecutive ids: a stream holding part of one would show here. */
const expectWholeTriples = (recorded: readonly RecordedEvent[]): void => {
  expect(recorded.length % 3).toBe(0);
  for (let index = 0; index < recorded.length; index += 3) {
    const ids = recorded.slice(index, index + 3).map((e) => e.id);
    const base = ids[0]!.replace(/-0$/, '');
    expect(ids).toEqual([`${base}-0`, `${base}-1`, `${base}-2`]);
  }
};

describe('postgres event store across processes', () => {
  let server: PostgresServer;
  let temp: TempDir;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);
  beforeEach(() => {
    temp = makeTempDir('postgres-processes');
  });
  afterEach(() => temp.remove());

  it('lets processes race on a shared stream while a subscriber in another sees every event once, in order', async () => {
    const acks = join(temp.path, 'acks');
    const reader = openPostgresEventStore({ connectionString: server.url, poolSize: 2 });
    const seen: RecordedEvent[] = [];
    const subscription = reader.subscribe({
      filter: { streamPrefixes: ['race-'] },
      handle: (batch) => void seen.push(...batch.events),
    });
    const children = [
      startChild([server.url, acks, 'race-p1', '4', '40']),
      startChild([server.url, acks, 'race-p2', '4', '40']),
      startChild([server.url, acks, 'race-q1', '2', '30', 'race-shared']),
      startChild([server.url, acks, 'race-q2', '2', '30', 'race-shared']),
    ];
    const exits = await Promise.all(children.map(exited));
    for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null, stderr: '' });

    const total = 2 * 4 * 40 * 3 + 2 * 2 * 30 * 3;
    await waitFor('the subscriber to see every event', () => seen.length >= total, 30_000);
    await subscription.stop();
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((e) => `${e.stream} ${e.id}`)).size).toBe(total);
    expect(seen.every((e, index) => index === 0 || e.position > seen[index - 1]!.position)).toBe(true);

    for (const name of ['race-p1', 'race-p2']) {
      for (let writer = 0; writer < 4; writer += 1) {
        const stream = events(await reader.readStream(`${name}-w${writer}`));
        expect(stream).toHaveLength(120);
        expectWholeTriples(stream);
      }
    }
    const shared = events(await reader.readStream('race-shared'));
    expect(shared).toHaveLength(2 * 2 * 30 * 3);
    expect(shared.map((e) => e.revision)).toEqual(shared.map((_, index) => BigInt(index)));
    expectWholeTriples(shared);
    expect(ackLines(acks)).toHaveLength(2 * 4 * 40 + 2 * 2 * 30);
    // Positions are handed out under the log-head lock: the whole log is 1..N, no hole, no repeat.
    const log = events(await reader.readAll());
    expect(log.map((e) => e.position)).toEqual(log.map((_, index) => BigInt(index + 1)));
    await reader.close();
  }, 60_000);

  it('keeps every acknowledged append and no partial one when a writing process is killed with SIGKILL', async () => {
    const acks = join(temp.path, 'acks');
    const child = startChild([server.url, acks, 'kill', '16', 'forever']);
    const exit = exited(child);
    await waitFor('300 acknowledged appends', () => ackLines(acks).length >= 300, 30_000);
    child.kill('SIGKILL');
    expect((await exit).signal).toBe('SIGKILL');

    const acknowledged = new Map<string, bigint>();
    for (const line of ackLines(acks)) {
      const [stream, revision] = line.split(' ');
      const known = acknowledged.get(stream!);
      if (known === undefined || BigInt(revision!) > known) acknowledged.set(stream!, BigInt(revision!));
    }
    const store = openPostgresEventStore({ connectionString: server.url, poolSize: 2 });
    for (let writer = 0; writer < 16; writer += 1) {
      const stream = `kill-w${writer}`;
      const recorded = events(await store.readStream(stream));
      expectWholeTriples(recorded);
      const last = recorded[recorded.length - 1];
      const acked = acknowledged.get(stream);
      if (acked !== undefined) expect(last!.revision >= acked).toBe(true);
    }
    expect(acknowledged.size).toBe(16);
    // The log as a whole holds whole triples too, at consecutive positions: no gap, no half-append.
    const log = events(await store.readAll()).filter((e) => e.stream.startsWith('kill-'));
    expectWholeTriples(log);
    for (let index = 0; index < log.length; index += 3) {
      expect(log[index + 1]!.position).toBe(log[index]!.position + 1n);
      expect(log[index + 2]!.position).toBe(log[index]!.position + 2n);
    }
    await store.close();
  }, 60_000);
});
