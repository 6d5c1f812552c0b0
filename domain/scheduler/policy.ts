/**
 * The slice of a compiled v1 autonomous policy the scheduler needs for one participant:
 * `ordered_cycle` over `action_order`, one action due every cadence, up to `max_action_attempts`.
 */
export interface SchedulerPolicy {
  readonly policy_address: string;
  readonly participant_address: string;
  readonly clock_address: string;
  readonly action_order: readonly string[];
  readonly start_tick: number;
  readonly cadence_ticks: number;
  readonly max_action_attempts: number;
  readonly max_in_flight: number;
  readonly failure_policy: FailurePolicy;
}

export type FailurePolicy = 'stop' | 'continue';

/** Whether an action falls due at `tick`: one every `cadence_ticks`, from `start_tick` on. */
export const isCadenceTick = (policy: SchedulerPolicy, tick: number): boolean =>
  tick >= policy.start_tick && (tick - policy.start_tick) % policy.cadence_ticks === 0;

/** The first cadence tick after `afterTick`. */
export const nextCadenceTick = (policy: SchedulerPolicy, afterTick: number): number =>
  afterTick < policy.start_tick
    ? policy.start_tick
    : policy.start_tick + (Math.floor((afterTick - policy.start_tick) / policy.cadence_ticks) + 1) * policy.cadence_ticks;

/** The cadence ticks in (afterTick, throughTick], in order. */
export const cadenceTicksBetween = (policy: SchedulerPolicy, afterTick: number, throughTick: number): number[] => {
  const ticks: number[] = [];
  let tick = policy.start_tick;
  if (afterTick >= tick) {
    tick += (Math.floor((afterTick - policy.start_tick) / policy.cadence_ticks) + 1) * policy.cadence_ticks;
  }
  for (; tick <= throughTick; tick += policy.cadence_ticks) ticks.push(tick);
  return ticks;
};

/** ordered_cycle: attempt n runs action_order[(n - 1) mod length]. */
export const actionForAttempt = (policy: SchedulerPolicy, attempt: number): string => {
  const action = policy.action_order[(attempt - 1) % policy.action_order.length];
  if (action === undefined) throw new RangeError('a v1 policy needs a non-empty action_order');
  return action;
};
