import { Client } from 'pg';
import { openPostgresEventStore, type PostgresEventStore } from '../../../../adapters/event-store/postgres/postgres-event-store';
import { describeEventStoreContract } from '../support/event-store-contract';
import { waitFor } from '../support/wait-for';
import { startPostgresServer, type PostgresServer } from './support/postgres-server';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgresServer();
}, 120_000);
afterAll(async () => server?.stop(), 60_000);

const open = (): PostgresEventStore => openPostgresEventStore({ connectionString: server.url, poolSize: 4 });

describeEventStoreContract('postgres', {
  open: async () => open(),
  reopen: async (previous) => {
    await previous.close();
    return open();
  },
});

describe('postgres event store', () => {
  let admin: Client;
  beforeEach(async () => {
    admin = new Client({ connectionString: server.url });
    await admin.connect();
  });
  afterEach(async () => admin.end());

  it('rejects a second row at the same stream revision in the schema itself', async () => {
    const store = open();
    await store.append('unique-s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await expect(
      admin.query(
        "INSERT INTO raes_events (position, stream, revision, id, type, data) VALUES (999999, 'unique-s', 0, 'b', 'T', '{}')",
      ),
    ).rejects.toThrow(/raes_events_stream_revision/);
    await store.close();
  });

  it('commits appends made in the same turn in one transaction, each checked on its own', async () => {
    const store = open();
    await store.append('batch-conflicted', [{ id: 'c0', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    const [conflicted, ...results] = await Promise.all([
      store.append('batch-conflicted', [{ id: 'c1', type: 'T', data: {} }], { expectedRevision: 5n }),
      ...Array.from({ length: 20 }, (_, index) =>
        store.append(`batch-${index}`, [{ id: 'x', type: 'T', data: {} }], { expectedRevision: 'no_stream' }),
      ),
    ]);
    expect(conflicted).toEqual({ kind: 'version_conflict', stream: 'batch-conflicted', expected: 5n, actual: 0n });
    expect(results.every((r) => r.kind === 'appended')).toBe(true);
    // now() is the transaction's start: one timestamp and consecutive positions mean one transaction.
    const rows = await admin.query<{ position: string; recorded_at: Date }>(
      "SELECT position, recorded_at FROM raes_events WHERE stream LIKE 'batch-%' AND stream <> 'batch-conflicted' ORDER BY position",
    );
    expect(new Set(rows.rows.map((r) => r.recorded_at.getTime())).size).toBe(1);
    expect(Number(rows.rows[19]!.position) - Number(rows.rows[0]!.position)).toBe(19);
    await store.close();
  });

  it('fails an append holding U+0000, which PostgreSQL text cannot hold, alone and with the reason; its batch is written', async () => {
    const store = open();
    const [refused, ...written] = await Promise.all([
      store.append('nul-s', [{ id: 'bad\u0000id', type: 'T', data: {} }], { expectedRevision: 'no_stream' }),
      ...Array.from({ length: 5 }, (_, index) => store.append(`nul-ok-${index}`, [{ id: 'ok', type: 'T', data: { text: 'a\u0000b' } }], { expectedRevision: 'no_stream' })),
    ]);
    expect(refused).toMatchObject({ kind: 'storage_failure', reason: expect.stringMatching(/U\+0000/) });
    expect(written.map((result) => result.kind)).toEqual(['appended', 'appended', 'appended', 'appended', 'appended']);
    const read = await store.readStream('nul-ok-0');
    expect(read.kind === 'read' && read.events[0]!.data).toEqual({ text: 'a\u0000b' });
    expect(await store.readStream('nul-s')).toEqual({ kind: 'read', events: [] });
    await store.close();
  });

  it('answers a retried append racing its first try in one batch with the first result', async () => {
    const store = open();
    await store.append('retry-s', [{ id: 'e0', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    const events = [{ id: 'e1', type: 'T', data: {} }, { id: 'e2', type: 'T', data: {} }];
    const [first, retried] = await Promise.all([
      store.append('retry-s', events, { expectedRevision: 0n }),
      store.append('retry-s', events, { expectedRevision: 0n }),
    ]);
    expect(first).toMatchObject({ kind: 'appended', nextExpectedRevision: 2n });
    expect(retried).toEqual(first);
    const read = await store.readStream('retry-s');
    expect(read.kind === 'read' && read.events.map((e) => e.id)).toEqual(['e0', 'e1', 'e2']);
    await store.close();
  });

  it("wakes a subscriber on another engine's commit through LISTEN/NOTIFY, without polling", async () => {
    const writer = open();
    const reader = openPostgresEventStore({ connectionString: server.url, poolSize: 2, pollIntervalMs: 600_000 });
    const seen: string[] = [];
    const subscription = reader.subscribe({
      filter: { streamPrefixes: ['notified-'] },
      handle: (batch) => void seen.push(...batch.events.map((event) => event.id)),
    });
    // The reader's own appends would wake it locally: only the writer appends, so only NOTIFY can.
    for (let tries = 0; ; tries += 1) {
      const listening = await admin.query("SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN raes_events_appended'");
      if (listening.rows.length > 0) break;
      if (tries > 500) throw new Error('the reader never listened');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await writer.append('notified-s', [{ id: 'n1', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await waitFor('the notified event', () => seen.length >= 1, 5_000);
    await writer.append('notified-s', [{ id: 'n2', type: 'T', data: {} }], { expectedRevision: 0n });
    await waitFor('the second notified event', () => seen.length >= 2, 5_000);
    await subscription.stop();
    expect(seen).toEqual(['n1', 'n2']);
    await Promise.all([writer.close(), reader.close()]);
  });

  it('falls back to polling when its LISTEN connection is cut, and listens again', async () => {
    const writer = open();
    const reader = openPostgresEventStore({ connectionString: server.url, poolSize: 2, pollIntervalMs: 200 });
    const seen: string[] = [];
    const subscription = reader.subscribe({
      filter: { streamPrefixes: ['cut-'] },
      handle: (batch) => void seen.push(...batch.events.map((event) => event.id)),
    });
    const listeners = async () =>
      (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN raes_events_appended'")).rows;
    for (let tries = 0; (await listeners()).length === 0; tries += 1) {
      if (tries > 500) throw new Error('the reader never listened');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [cut] = await listeners();
    await admin.query('SELECT pg_terminate_backend($1)', [cut!.pid]);
    await writer.append('cut-s', [{ id: 'c1', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await waitFor('the event after the cut', () => seen.length >= 1, 5_000);
    for (let tries = 0; !(await listeners()).some((row) => row.pid !== cut!.pid); tries += 1) {
      if (tries > 500) throw new Error('the reader never listened again');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await subscription.stop();
    expect(seen).toEqual(['c1']);
    await Promise.all([writer.close(), reader.close()]);
  });

  it('keeps the JSON text of data as written, key order included', async () => {
    const store = open();
    const dataJson = '{"z":1,"a":{"y":2,"b":3}}';
    await store.append('text-s', [{ id: 'a', type: 'T', data: JSON.parse(dataJson), dataJson }], { expectedRevision: 'no_stream' });
    const read = await store.readStream('text-s');
    expect(read).toMatchObject({ kind: 'read', events: [{ dataJson, data: { z: 1, a: { y: 2, b: 3 } } }] });
    await store.close();
  });

  it('reports a failed append as a storage failure, writes no part of it and goes on appending', async () => {
    const store = open();
    await store.append('kept-s', [{ id: 'k0', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await admin.query(`
      CREATE OR REPLACE FUNCTION refuse_poison() RETURNS trigger AS $$
      BEGIN IF NEW.id = 'poison' THEN RAISE EXCEPTION 'disk says no'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON raes_events FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
    try {
      const [broken, kept] = await Promise.all([
        store.append('broken-s', [{ id: 'a', type: 'T', data: {} }, { id: 'poison', type: 'T', data: {} }], { expectedRevision: 'any' }),
        store.append('kept-s', [{ id: 'k1', type: 'T', data: {} }], { expectedRevision: 0n }),
      ]);
      expect(broken).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining('disk says no') });
      expect(kept).toMatchObject({ kind: 'appended', nextExpectedRevision: 1n });
      expect(await store.readStream('broken-s')).toEqual({ kind: 'read', events: [] });
      expect(await store.append('broken-s', [{ id: 'b0', type: 'T', data: {} }], { expectedRevision: 'no_stream' })).toMatchObject({
        kind: 'appended',
        nextExpectedRevision: 0n,
      });
    } finally {
      await admin.query('DROP TRIGGER refuse_poison ON raes_events');
    }
    await store.close();
  });

  it('sees appends another engine committed, and its revision checks count them', async () => {
    const first = open();
    const second = open();
    await first.append('shared-s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await second.append('shared-s', [{ id: 'b', type: 'T', data: {} }], { expectedRevision: 0n });
    expect(await first.append('shared-s', [{ id: 'c', type: 'T', data: {} }], { expectedRevision: 0n })).toMatchObject({
      kind: 'version_conflict',
      actual: 1n,
    });
    await Promise.all([first.close(), second.close()]);
  });

  it('runs its sessions with synchronous_commit on even when the database default and the URL say off', async () => {
    await admin.query('CREATE DATABASE relaxed');
    await admin.query('ALTER DATABASE relaxed SET synchronous_commit = off');
    // The URL's own options cannot turn it off either.
    const url = `${server.url.replace(/\/postgres$/, '/relaxed')}?options=${encodeURIComponent('-c synchronous_commit=off')}`;
    const store = openPostgresEventStore({ connectionString: url, poolSize: 1 });
    await store.append('durable-s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    // A trigger runs in the store's own session: it records the setting that session commits with.
    const relaxed = new Client({ connectionString: server.url.replace(/\/postgres$/, '/relaxed') });
    await relaxed.connect();
    await relaxed.query(`
      CREATE FUNCTION record_commit_mode() RETURNS trigger AS $$
      BEGIN NEW.type := current_setting('synchronous_commit'); RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER record_commit_mode BEFORE INSERT ON raes_events FOR EACH ROW EXECUTE FUNCTION record_commit_mode();`);
    expect((await relaxed.query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s")).rows[0]!.s).toBe('off');
    await relaxed.end();
    await store.append('durable-s', [{ id: 'b', type: 'T', data: {} }], { expectedRevision: 0n });
    const read = await store.readStream('durable-s', { fromRevision: 1n });
    expect(read).toMatchObject({ kind: 'read', events: [{ id: 'b', type: 'on' }] });
    await store.close();
  });

  it('returns a storage failure naming the server and the setting to fix when the server is unreachable', async () => {
    const store = openPostgresEventStore({ connectionString: 'postgres://raes:secret@127.0.0.1:1/events', connectTimeoutMs: 2_000 });
    const expected = {
      kind: 'storage_failure',
      reason: expect.stringMatching(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/events .*RAES_POSTGRES_URL/),
    };
    expect(await store.append('s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'any' })).toMatchObject(expected);
    expect(await store.readAll()).toMatchObject(expected);
    expect(await store.readStreamBackwards('s', { maxCount: 1 })).toMatchObject(expected);
    const subscription = store.subscribe({ handle: () => undefined });
    expect(await subscription.ended).toMatchObject(expected);
    expect(JSON.stringify(await store.readStream('s'))).not.toContain('secret');
    await store.close();
  });
});
