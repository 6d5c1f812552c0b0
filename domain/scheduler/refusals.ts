/** Every reason the scheduler refuses a command, listed once. */
export const SCHEDULER_REFUSAL_CODES = [
  'scheduler_stopped',
  'attempts_exhausted',
  'in_flight_exhausted',
  'tick_not_due',
  'tick_already_scheduled',
  'attempt_unknown',
  'action_not_indeterminate',
  'scheduler_running',
  'indeterminate_unresolved',
] as const;

export type SchedulerRefusalCode = (typeof SCHEDULER_REFUSAL_CODES)[number];

export interface SchedulerRefusal {
  readonly code: SchedulerRefusalCode;
  readonly message: string;
}
