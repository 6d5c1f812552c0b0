import type { InterruptedInvocation } from '../invocation';
import type { SchedulerState } from '../scheduler';

/**
 * An open invocation as recovery reads it: with the fold recovery decides from and the revision it
 * reflects when the view keeps them (recovery then reads no stream), else just its id.
 */
export type OpenInvocationEntry = {
  readonly invocation_action_instance_id: string;
  /** The invocation's episode: recovery of one episode settles only its own invocations. */
  readonly episode_id: string;
  readonly recovery?: InterruptedInvocation;
  readonly revision?: number;
};

/** A scheduler's state as a view keeps it, with the revision of the last event folded in. */
export interface SchedulerSnapshot {
  readonly state: SchedulerState;
  readonly revision: number;
}

/** Keeps the open-invocations read model current and lists it (every episode's); recovery starts from it. */
export interface OpenInvocationsIndex {
  catchUp(): Promise<unknown>;
  listOpen(): readonly OpenInvocationEntry[];
  /** Scheduler states by stream, as of the last catch-up; without them start() folds every scheduler stream. */
  schedulerSnapshots?(): ReadonlyMap<string, SchedulerSnapshot>;
  /**
   * True when the view has applied nothing yet (a new or lost views file). Recovery then does not replay
   * the whole history into it first: it folds the scheduler streams and recovers their in-flight
   * attempts by their own streams, and the view catches up in the background.
   */
  isBlank?(): boolean;
}
