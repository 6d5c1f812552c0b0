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
}
