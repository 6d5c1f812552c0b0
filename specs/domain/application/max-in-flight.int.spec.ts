import fc from 'fast-check';
import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager } from '../../../domain/application';
import type { OuterActionRequest } from '../../../domain/application';
import { schedulerStream } from '../../../domain/streams';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, participantOf, PARTICIPANT, POLICY, steppingClock, type WorldOptions } from './support/world';

/**
 * `max_in_flight` N: up to N invocations of a participant run at once, never N + 1, and a slow
 * invocation of one participant holds back no other participant's. Every invocation here waits on a
 * gate the spec opens; the spec waits for states (so many running), never for time.
 */

/** Invocations that wait until the spec releases them; counts how many run at once. */
class GatedHarness {
  readonly waiting = new Map<string, () => void>();
  readonly finished: string[] = [];
  readonly running = new Map<string, number>();
  readonly mostRunning = new Map<string, number>();

  constructor(private readonly gated: (request: OuterActionRequest) => boolean = () => true) {}

  readonly runtime = new HarnessRuntime(async (request) => {
    const who = request.participant_address;
    const now = (this.running.get(who) ?? 0) + 1;
    this.running.set(who, now);
    this.mostRunning.set(who, Math.max(this.mostRunning.get(who) ?? 0, now));
    if (this.gated(request)) await new Promise<void>((release) => this.waiting.set(request.action_instance_id, release));
    this.running.set(who, (this.running.get(who) ?? 1) - 1);
    this.finished.push(request.action_instance_id);
    return probeResult(request, []);
  });

  release(actionInstanceId: string): void {
    const release = this.waiting.get(actionInstanceId);
    if (release === undefined) throw new Error(`${actionInstanceId} is not waiting`);
    this.waiting.delete(actionInstanceId);
    release();
  }

  /**
   * Resolves once `holds` is true, checking after each turn of the event loop; rejects, naming what it
   * waited for, if the engine never gets there (a bound against hanging, not a timing assertion).
   */
  until(what: string, holds: () => boolean): Promise<void> {
    const giveUpAt = Date.now() + 15_000;
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (holds()) return resolve();
        if (Date.now() > giveUpAt) return reject(new Error(`never reached: ${what} (running ${JSON.stringify([...this.running])})`));
        setImmediate(check);
      };
      check();
    });
  }

}

const managerOf = (harness: GatedHarness, world: WorldOptions, store = new MemoryEventStore()): RuntimeManager =>
  new RuntimeManager({
    compiled: compiledScenario({ cadenceTicks: 1, failurePolicy: 'continue', ...world }),
    manifest: manifest(),
    runtime: harness.runtime,
    store,
    episodeId: 'episode-1',
    clock: steppingClock(),
  });

/** The most attempts of a scheduler stream in flight at once, read from its recorded events. */
const mostInFlightRecorded = async (store: MemoryEventStore, stream: string): Promise<number> => {
  const read = await store.readStream(stream, {});
  if (read.kind !== 'read') throw new Error(`reading ${stream}: ${read.kind}`);
  let inFlight = 0;
  let most = 0;
  for (const event of read.events) {
    if (event.type === 'AttemptStarted') most = Math.max(most, ++inFlight);
    if (event.type === 'AttemptFinished') inFlight--;
  }
  return most;
};

jest.setTimeout(60_000);

describe('max_in_flight', () => {
  it('runs up to max_in_flight invocations of a participant at once and never more, whatever order they end in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(), { minLength: 7, maxLength: 7 }),
        async (maxInFlight, attempts, releaseOrder) => {
          const harness = new GatedHarness();
          const store = new MemoryEventStore();
          const manager = managerOf(harness, { maxInFlight, maxActionAttempts: attempts }, store);
          await manager.start();
          const advanced = manager.advance(attempts);
          for (let ended = 0; ended < attempts; ended++) {
            const expected = Math.min(maxInFlight, attempts - ended);
            await harness.until(`${expected} invocations in flight`, () => harness.waiting.size === expected);
            const waiting = [...harness.waiting.keys()];
            harness.release(waiting[releaseOrder[ended]! % waiting.length]!);
          }
          await advanced;
          expect(harness.mostRunning.get(PARTICIPANT)).toBe(Math.min(maxInFlight, attempts));
          expect(harness.finished).toHaveLength(attempts);
          expect(await mostInFlightRecorded(store, schedulerStream('episode-1', POLICY, PARTICIPANT))).toBe(Math.min(maxInFlight, attempts));
          expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ attemptsStarted: attempts, inFlight: new Map() });
          await manager.close();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('shows 3 attempts in flight at once with max_in_flight 3, and never 4, in the store too', async () => {
    const harness = new GatedHarness();
    const store = new MemoryEventStore();
    const manager = managerOf(harness, { maxInFlight: 3, maxActionAttempts: 6 }, store);
    await manager.start();
    const advanced = manager.advance(6);
    await harness.until('3 invocations in flight', () => harness.waiting.size === 3);
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.inFlight.size).toBe(3);
    for (const id of [...harness.waiting.keys()]) harness.release(id);
    await harness.until('the next 3 in flight', () => harness.waiting.size === 3 && harness.finished.length === 3);
    for (const id of [...harness.waiting.keys()]) harness.release(id);
    await advanced;
    expect(harness.mostRunning.get(PARTICIPANT)).toBe(3);
    expect(await mostInFlightRecorded(store, schedulerStream('episode-1', POLICY, PARTICIPANT))).toBe(3);
    await manager.close();
  });

  it("does not hold one participant's attempts back behind another's slow one", async () => {
    const slow = `${POLICY}:${PARTICIPANT}:1`;
    const harness = new GatedHarness((request) => request.action_instance_id === slow);
    const manager = managerOf(harness, { maxInFlight: 1, maxActionAttempts: 3, extraAgents: 1 });
    await manager.start();
    const advanced = manager.advance(3);
    const other = participantOf('agent-1');
    await harness.until(`all 3 invocations of ${other} ended`, () => harness.finished.filter((id) => id.includes(`:${other}:`)).length === 3);
    expect(harness.waiting.has(slow)).toBe(true);
    expect(manager.schedulerStatus(POLICY, other)).toMatchObject({ attemptsStarted: 3, inFlight: new Map() });
    // max_in_flight 1: the slow participant's own next attempt waits for its first.
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.attemptsStarted).toBe(1);
    harness.release(slow);
    await advanced;
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ attemptsStarted: 3, inFlight: new Map() });
    await manager.close();
  });

  it("moves the clock tick by tick past a full scheduler, as run and the clock driver advance, holding back no other participant", async () => {
    const slow = `${POLICY}:${PARTICIPANT}:1`;
    const harness = new GatedHarness((request) => request.action_instance_id === slow);
    const manager = managerOf(harness, { maxInFlight: 1, maxActionAttempts: 3, extraAgents: 1 });
    await manager.start();
    const other = participantOf('agent-1');
    for (let tick = 0; tick < 3; tick++) await manager.advance(1, 'started');
    await harness.until(`all 3 invocations of ${other} ended`, () => harness.finished.filter((id) => id.includes(`:${other}:`)).length === 3);
    expect(harness.waiting.has(slow)).toBe(true);
    expect(manager.tick).toBe(2);
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.attemptsStarted).toBe(1);
    harness.release(slow);
    await manager.idle();
    // The ticks that waited for the slow participant's slot ran once it was free.
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ attemptsStarted: 3, inFlight: new Map() });
    await manager.close();
  });

  it('stops a failure_policy stop scheduler on a failed attempt: the attempts already in flight end and count, no new one starts', async () => {
    const first = `${POLICY}:${PARTICIPANT}:1`;
    const harness = new GatedHarness();
    const manager = managerOf(harness, { maxInFlight: 3, maxActionAttempts: 6, failurePolicy: 'stop' });
    await manager.start();
    const advanced = manager.advance(6);
    await harness.until('3 invocations in flight', () => harness.waiting.size === 3);
    // probeResult without a completed tool call reports failed: the first attempt fails.
    harness.release(first);
    await harness.until('the first attempt counted', () => manager.schedulerStatus(POLICY, PARTICIPANT)?.status === 'stopped');
    for (const id of [...harness.waiting.keys()]) harness.release(id);
    await advanced;
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({
      status: 'stopped',
      attemptsStarted: 3,
      inFlight: new Map(),
      stoppedBy: { reason: 'failure_policy', action_instance_id: first },
    });
    expect(harness.finished).toHaveLength(3);
    await manager.close();
  });
});
