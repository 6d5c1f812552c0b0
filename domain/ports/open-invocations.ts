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
  /** The link digest of the stream's event at `revision` (null when it carries none), when the view keeps it. */
  readonly link?: string | null;
};

/** A scheduler's state as a view keeps it, with the revision of the last event folded in. */
export interface SchedulerSnapshot {
  readonly state: SchedulerState;
  readonly revision: number;
  /** The link digest of the stream's event at `revision` (null when it carries none), when the view keeps it. */
  readonly link?: string | null;
}

/** The open invocations (every episode's, oldest first) and the scheduler snapshots, as of the end of the log. */
export interface CurrentOpenInvocations {
  readonly open: readonly OpenInvocationEntry[];
  readonly schedulerSnapshots: ReadonlyMap<string, SchedulerSnapshot>;
}

/** Keeps the open-invocations read model current and lists it (every episode's); recovery starts from it. */
export interface OpenInvocationsIndex {
  catchUp(): Promise<unknown>;
  listOpen(): readonly OpenInvocationEntry[];
  /**
   * The view's rows and snapshots with the events past its checkpoint folded in memory, without
   * writing the view (it catches up after recovery); undefined when they cannot be had so (a blank
   * view, one a projection's other version wrote, a tail that could not be read or applied): start()
   * then catches the view up and reads it.
   */
  current?(): Promise<CurrentOpenInvocations | undefined>;
  /** Scheduler states by stream, as of the last catch-up; without them start() folds every scheduler stream. */
  schedulerSnapshots?(): ReadonlyMap<string, SchedulerSnapshot>;
  /**
   * True when the view has applied nothing yet (a new or lost views file). Recovery then does not replay
   * the whole history into it first: it folds the scheduler streams and recovers their in-flight
   * attempts by their own streams, and the view catches up in the background.
   */
  isBlank?(): boolean;
}
