import type { PolicyParticipant } from './policy-participants';
import type { RuntimeContext } from './runtime-context';
import { runStartedAttempt, startAttempt } from './attempts';

/** A due tick waiting for its scheduler to have a free slot; `taken` runs once it started or was refused. */
interface DueTick {
  readonly tick: number;
  readonly taken: () => void;
}

/** One policy-participant's due ticks, in tick order, and the attempts of it running in this process. */
interface Lane {
  readonly due: DueTick[];
  running: number;
  /** True while a StartAttempt is being decided: ticks start one after another, in order. */
  starting: boolean;
}

/**
 * Runs each policy-participant's attempts up to its policy's `max_in_flight` at once, each
 * scheduler on its own: a slow attempt holds back only later ticks of its own scheduler, once that
 * scheduler has `max_in_flight` attempts running. A due tick waits for a free slot and then starts
 * (the scheduler decider still refuses it when the scheduler stopped or used its attempts meanwhile).
 */
export class AttemptLanes {
  private readonly lanes = new Map<PolicyParticipant, Lane>();
  private busy = 0;
  private idleWaiters: (() => void)[] = [];
  private failures: unknown[] = [];
  /** Told when the next attempt ends. */
  private endWaiters: (() => void)[] = [];

  constructor(private readonly context: RuntimeContext) {}

  /**
   * Hands a due tick to its scheduler's lane; resolves once its attempt started or was refused. When the
   * scheduler already runs `max_in_flight` attempts, the tick waits in the lane and this resolves as
   * soon as any attempt of any scheduler ends: a full scheduler paces the clock no more than the others.
   */
  enqueue(entry: PolicyParticipant, tick: number): Promise<void> {
    const lane = this.laneOf(entry);
    return new Promise<void>((taken) => {
      lane.due.push({ tick, taken });
      this.busy++;
      this.pump(entry, lane);
      if (lane.running >= entry.schedulerPolicy.max_in_flight) this.endWaiters.push(taken);
    });
  }

  /** Resolves once no tick is waiting and no attempt runs; rejects with the first attempt that threw since the last call. */
  async idle(): Promise<void> {
    if (this.busy > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const failure = this.failures[0];
    this.failures = [];
    if (failure !== undefined) throw failure;
  }

  /** Drops the ticks still waiting for a slot (they never started: nothing of them is recorded). */
  dropWaiting(): void {
    for (const told of this.endWaiters.splice(0)) told();
    for (const lane of this.lanes.values()) {
      for (const due of lane.due.splice(0)) {
        due.taken();
        this.settle();
      }
    }
  }

  private laneOf(entry: PolicyParticipant): Lane {
    let lane = this.lanes.get(entry);
    if (lane === undefined) {
      lane = { due: [], running: 0, starting: false };
      this.lanes.set(entry, lane);
    }
    return lane;
  }

  private pump(entry: PolicyParticipant, lane: Lane): void {
    if (lane.starting || lane.due.length === 0 || lane.running >= entry.schedulerPolicy.max_in_flight) return;
    const due = lane.due.shift() as DueTick;
    lane.starting = true;
    startAttempt(this.context, entry, due.tick)
      .then((attempt) => {
        if (attempt === undefined) return;
        lane.running++;
        this.busy++;
        runStartedAttempt(this.context, entry, attempt)
          .catch((error: unknown) => this.fail(error))
          .finally(() => {
            lane.running--;
            this.settle();
            this.pump(entry, lane);
            const waiters = this.endWaiters;
            this.endWaiters = [];
            for (const told of waiters) told();
          });
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        lane.starting = false;
        due.taken();
        this.settle();
        this.pump(entry, lane);
      });
  }

  private fail(error: unknown): void {
    this.failures.push(error);
    this.context.progress({ kind: 'storage_failure', reason: error instanceof Error ? error.message : String(error) });
  }

  private settle(): void {
    this.busy--;
    if (this.busy > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
