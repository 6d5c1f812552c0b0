import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../../domain/ports/event-store';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';
import { openSqliteOrThrow } from './open-sqlite';

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

/** Every append is a triple with consecutive ids: a stream holding part of one would show here. */
const expectWholeTriples = (events: readonly RecordedEvent[]): void => {
  expect(events.length % 3).toBe(0);
  for (let index = 0; index < events.length; index += 3) {
    const ids = events.slice(index, index + 3).map((e) => e.id);
    const base = ids[0]!.replace(/-0$/, '');
    expect(ids).toEqual([`${base}-0`, `${base}-1`, `${base}-2`]);
  }
};

describe('sqlite event store across processes', () => {
  let temp: TempDir;
  beforeEach(() => {
    temp = makeTempDir('sqlite-processes');
  });
  afterEach(() => temp.remove());

  it('lets two processes append to one file, racing on a shared stream, without losing or splitting appends', async () => {
    const db = join(temp.path, 'events.sqlite');
    const acks = join(temp.path, 'acks');
    const children = [
      startChild([db, acks, 'p1', '4', '60']),
      startChild([db, acks, 'p2', '4', '60']),
      startChild([db, acks, 'q1', '2', '40', 'shared']),
      startChild([db, acks, 'q2', '2', '40', 'shared']),
    ];
    const exits = await Promise.all(children.map(exited));
    for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null, stderr: '' });

    const store = openSqliteOrThrow(db);
    for (const name of ['p1', 'p2']) {
      for (let writer = 0; writer < 4; writer += 1) {
        const result = await store.readStream(`${name}-w${writer}`);
        if (result.kind !== 'read') throw new Error(result.reason);
        expect(result.events).toHaveLength(180);
        expectWholeTriples(result.events);
      }
    }
    const shared = await store.readStream('shared');
    if (shared.kind !== 'read') throw new Error(shared.reason);
    expect(shared.events).toHaveLength(2 * 2 * 40 * 3);
    expect(shared.events.map((e) => e.revision)).toEqual(shared.events.map((_, index) => BigInt(index)));
    expectWholeTriples(shared.events);
    expect(ackLines(acks)).toHaveLength(2 * 4 * 60 + 2 * 2 * 40);

    const all = await store.readAll();
    if (all.kind !== 'read') throw new Error(all.reason);
    expect(all.events).toHaveLength(2 * 4 * 180 + 480);
    expect(all.events.every((e, index) => index === 0 || e.position > all.events[index - 1]!.position)).toBe(true);
    await store.close();
  }, 30_000);

  it('keeps every acknowledged append and no partial one when a writing process is killed with SIGKILL', async () => {
    const db = join(temp.path, 'events.sqlite');
    const acks = join(temp.path, 'acks');
    const child = startChild([db, acks, 'k', '16', 'forever']);
    const exit = exited(child);
    await waitFor('600 acknowledged appends', () => ackLines(acks).length >= 600, 20_000);
    child.kill('SIGKILL');
    expect((await exit).signal).toBe('SIGKILL');

    const acknowledged = new Map<string, bigint>();
    for (const line of ackLines(acks)) {
      const [stream, revision] = line.split(' ');
      const known = acknowledged.get(stream!);
      if (known === undefined || BigInt(revision!) > known) acknowledged.set(stream!, BigInt(revision!));
    }
    const store = openSqliteOrThrow(db);
    for (let writer = 0; writer < 16; writer += 1) {
      const stream = `k-w${writer}`;
      const result = await store.readStream(stream);
      if (result.kind !== 'read') throw new Error(result.reason);
      expectWholeTriples(result.events);
      const last = result.events[result.events.length - 1];
      const acked = acknowledged.get(stream);
      if (acked !== undefined) expect(last!.revision >= acked).toBe(true);
    }
    expect(acknowledged.size).toBe(16);
    await store.close();
  }, 30_000);
});
