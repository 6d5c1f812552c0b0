import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import { CHAIN_KEY, chainLink, storedLink, type ChainVersion } from '../../../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, sealData, sealRolling } from '../../../domain/integrity/seal';
import type { JsonValue, RecordedEvent } from '../../../domain/ports/event-store';
import { MANIFEST, ROOT, SCENARIO, cli, scratchDir } from '../../adapters/cli/support/cli';

jest.setTimeout(180_000);

/**
 * The Python verifier (standard library only) over a real store's events, dumped as JSON Lines: it
 * recomputes the rule of docs/integrity.md without this code, and agrees with `raes-tools audit`.
 */

const VERIFIER = join(ROOT, 'clients/python/verify_history.py');

const dumpLine = (event: RecordedEvent): string =>
  JSON.stringify({ position: event.position.toString(), stream: event.stream, revision: event.revision.toString(), type: event.type, data: event.data, metadata: event.metadata ?? null });

const verify = (file: string) => {
  const run = spawnSync('python3', [VERIFIER, file], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

describe('clients/python/verify_history.py', () => {
  let dumped: string;
  let lines: string[];

  beforeAll(async () => {
    const dataDir = scratchDir('python-verify');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-python', '--data-dir', dataDir, '--json');
    expect(run.status).toBe(0);
    const store = openSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    if (store.kind === 'storage_failure') throw new Error(store.reason);
    const read = await store.readAll();
    await store.close();
    if (read.kind !== 'read') throw new Error(read.reason);
    lines = read.events.map(dumpLine);
    dumped = join(dataDir, 'events.jsonl');
    writeFileSync(dumped, `${lines.join('\n')}\n`);
  });

  it('finds the history the engine wrote sound', () => {
    const result = verify(dumped);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`${lines.length} events, ${lines.length} chained, 0 unchained before the chain, 1 seals, 0 not sealed yet`);
    expect(result.stdout).toMatch(/^sound: /m);
  });

  it('names the event whose data was edited, and the seal over a removed stream', () => {
    const edited = [...lines];
    const target = Math.floor(lines.length / 2);
    const event = JSON.parse(edited[target]!) as { position: string; data: Record<string, unknown> };
    edited[target] = JSON.stringify({ ...event, data: { ...event.data, extra: 1.5e-7 } });
    const editedFile = `${dumped}.edited`;
    writeFileSync(editedFile, edited.join('\n'));
    const result = verify(editedFile);
    expect(result.status).toBe(1);
    expect(result.stdout.split('\n')[1]).toMatch(new RegExp(`^chain_digest_mismatch: the event at position ${event.position} `));

    const stream = (JSON.parse(lines[1]!) as { stream: string }).stream;
    const removedFile = `${dumped}.removed`;
    writeFileSync(removedFile, lines.filter((line) => (JSON.parse(line) as { stream: string }).stream !== stream).join('\n'));
    const removed = verify(removedFile);
    expect(removed.status).toBe(1);
    expect(removed.stdout.split('\n')[1]).toMatch(/^seal_mismatch: the event at position \d+ \(stream 'integrity-seals'/);
  });

  it('checks version-1 links and seals (a store written before version 2) and a history that goes on in version 2', () => {
    // Version 1 written by the rule of docs/integrity.md (hex digests over the data, a seal rolled per event).
    const v1Lines: string[] = [];
    const digests: string[] = [];
    const heads = new Map<string, string>();
    let position = 0;
    const add = (stream: string, revision: number, type: string, data: JsonValue, version: ChainVersion): void => {
      const link = chainLink(heads.get(stream) ?? null, stream, revision, type, data, version);
      heads.set(stream, link.digest);
      digests.push(link.digest);
      position += 1;
      v1Lines.push(JSON.stringify({ position: String(position), stream, revision: String(revision), type, data, metadata: { [CHAIN_KEY]: storedLink(link) } }));
    };
    add('s', 0, 'Opened', { b: [1.5, 'é'], a: null }, 1);
    add('s', 1, 'Moved', { to: 'there' }, 1);
    add(SEAL_STREAM, 0, SEAL_EVENT_TYPE, sealData(2n, 2, sealRolling(1, ROLLING_START, digests.slice(0, 2))), 1);
    const firstSeal = JSON.parse(v1Lines[2]!) as { data: { rolling_digest: string } };
    add('s', 2, 'Moved', { to: 'back' }, 2);
    add(SEAL_STREAM, 1, SEAL_EVENT_TYPE, sealData(4n, 4, sealRolling(2, firstSeal.data.rolling_digest, digests.slice(2, 4))), 2);
    const mixed = `${dumped}.v1`;
    writeFileSync(mixed, `${v1Lines.join('\n')}\n`);
    const result = verify(mixed);
    expect(result.stdout).toContain('5 events, 5 chained, 0 unchained before the chain, 2 seals, 0 not sealed yet');
    expect(result.status).toBe(0);
    const edited = [...v1Lines];
    edited[1] = edited[1]!.replace('"there"', '"elsewhere"');
    writeFileSync(`${mixed}.edited`, edited.join('\n'));
    const found = verify(`${mixed}.edited`);
    expect(found.status).toBe(1);
    expect(found.stdout.split('\n')[1]).toMatch(/^chain_digest_mismatch: the event at position 2 /);
  });

  it('refuses input that is not stored events, with exit 2', () => {
    const bad = `${dumped}.bad`;
    writeFileSync(bad, '{"position": "1"}\n');
    const result = verify(bad);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/line 1 is not a stored event/);
  });
});
