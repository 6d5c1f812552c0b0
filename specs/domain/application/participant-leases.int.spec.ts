import { MemoryEventStore } from '../../../adapters/event-store';
import { ParticipantLeases } from '../../../domain/application';
import { leaseStream } from '../../../domain/streams';

/**
 * Participant leases through the store port: of engines deciding at once, the stream's expected
 * revision lets exactly one take each participant; another takes it only once it expired unrenewed,
 * and the first then learns it lost it.
 */
const PARTICIPANTS = ['participant.behavior.a', 'participant.behavior.b', 'participant.behavior.c'];
const T0 = Date.parse('2026-04-11T10:00:00Z');

const engine = (store: MemoryEventStore, owner: string, clock: { now: number }, claims: ReadonlySet<string> | 'all' = 'all') =>
  new ParticipantLeases(store, 'episode-1', PARTICIPANTS, { owner, durationMs: 3000, marginMs: 1000, claims }, () => new Date(clock.now));

describe('participant leases on one store', () => {
  it('gives each participant to exactly one of two engines deciding at once', async () => {
    const store = new MemoryEventStore();
    const clock = { now: T0 };
    const first = engine(store, 'engine-a', clock);
    const second = engine(store, 'engine-b', clock);
    const [a, b] = await Promise.all([first.round(), second.round()]);
    expect([...a.taken, ...b.taken].sort()).toEqual([...PARTICIPANTS].sort());
    for (const participant of PARTICIPANTS) {
      expect([participant, first.holds(participant) !== second.holds(participant)]).toEqual([participant, true]);
      const read = await store.readStream(leaseStream('episode-1', participant), {});
      if (read.kind !== 'read') throw new Error(read.reason);
      expect(read.events.map((e) => e.type)).toEqual(['LeaseAcquired']);
    }
  });

  it('hands an unrenewed lease to another engine only after it expired; the first then finds it lost', async () => {
    const store = new MemoryEventStore();
    const clock = { now: T0 };
    const first = engine(store, 'engine-a', clock);
    const second = engine(store, 'engine-b', clock, new Set());
    expect((await first.round()).taken).toHaveLength(3);
    clock.now = T0 + 1500;
    expect(first.holds(PARTICIPANTS[0]!)).toBe(true);
    expect((await second.round()).taken).toEqual([]);
    // The margin: the holder stops counting on a lease 1 s before it expires unrenewed.
    clock.now = T0 + 2100;
    expect(first.holds(PARTICIPANTS[0]!)).toBe(false);
    expect((await second.round()).taken).toEqual([]);
    clock.now = T0 + 3000;
    expect([...(await second.round()).taken].sort()).toEqual([...PARTICIPANTS].sort());
    expect(second.heldElsewhere()).toEqual([]);
    expect([...(await first.round()).lost].sort()).toEqual([...PARTICIPANTS].sort());
    expect(first.heldElsewhere().map((held) => held.owner)).toEqual(['engine-b', 'engine-b', 'engine-b']);
  });

  it('names a lease held elsewhere as of its last round, even once it expired since (it was not taken)', async () => {
    const store = new MemoryEventStore();
    const clock = { now: T0 };
    const first = engine(store, 'engine-a', clock);
    const second = engine(store, 'engine-b', clock, new Set());
    await first.round();
    clock.now = T0 + 2999;
    expect((await second.round()).taken).toEqual([]);
    clock.now = T0 + 3001;
    const expiry = new Date(T0 + 3000).toISOString();
    expect(second.heldElsewhere()).toEqual(PARTICIPANTS.map((participant_address) => ({ participant_address, owner: 'engine-a', expires_at: expiry })));
    expect([...(await second.round()).taken].sort()).toEqual([...PARTICIPANTS].sort());
    expect(second.heldElsewhere()).toEqual([]);
  });

  it('keeps a renewed lease, and gives a released one only to an engine that claims it', async () => {
    const store = new MemoryEventStore();
    const clock = { now: T0 };
    const first = engine(store, 'engine-a', clock);
    const bystander = engine(store, 'engine-b', clock, new Set());
    const claimant = engine(store, 'engine-c', clock, new Set([PARTICIPANTS[1]!]));
    await first.round();
    for (let step = 1; step <= 4; step++) {
      clock.now = T0 + step * 1000;
      expect((await first.round()).lost).toEqual([]);
      expect((await bystander.round()).taken).toEqual([]);
    }
    await first.releaseAll();
    expect((await bystander.round()).taken).toEqual([]);
    expect((await claimant.round()).taken).toEqual([PARTICIPANTS[1]]);
  });
});
