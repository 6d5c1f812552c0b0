import * as t from 'io-ts';

export const StopReasonCodec = t.keyof({ indeterminate_tool_action: null, failure_policy: null });
export type StopReason = t.TypeOf<typeof StopReasonCodec>;

/**
 * One participant's scheduler under one autonomous policy. It counts attempts, bounds the
 * attempts in flight, and stops on a failed attempt (failure_policy `stop`) or on an
 * indeterminate tool action, which only an operator's resolution and restart lift.
 */
export interface SchedulerState {
  readonly status: 'running' | 'stopped';
  readonly attemptsStarted: number;
  /** Attempt number -> outer action instance id, for attempts not yet finished. */
  readonly inFlight: ReadonlyMap<number, string>;
  /** Indeterminate tool actions no operator has resolved yet. */
  readonly unresolved: ReadonlySet<string>;
  readonly stoppedBy: { readonly reason: StopReason; readonly action_instance_id: string } | null;
  readonly executionGeneration: number;
  readonly lastTick: number | null;
}

export const initialSchedulerState = (): SchedulerState => ({
  status: 'running',
  attemptsStarted: 0,
  inFlight: new Map(),
  unresolved: new Set(),
  stoppedBy: null,
  executionGeneration: 0,
  lastTick: null,
});
