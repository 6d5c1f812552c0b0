import { SchedulerStateDataCodec } from './checkpoint';
import type { SchedulerEvent } from './events';

type Members = { readonly [member: string]: unknown };
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): boolean => typeof value === 'string';
const isTexts = (value: unknown): boolean => Array.isArray(value) && value.every(isText);

/**
 * What the scheduler's fold (`evolveScheduler`) reads of each event, and nothing else, so that older
 * stores whose events lack a member the fold does not read still load. A checkpoint's state is read whole.
 */
const FOLDED_MEMBERS: Record<SchedulerEvent['type'], { readonly what: string; readonly holds: (event: Members) => boolean }> = {
  AttemptStarted: { what: 'attempt, action_instance_id and tick', holds: (event) => isNumber(event.attempt) && isText(event.action_instance_id) && isNumber(event.tick) },
  AttemptFinished: { what: 'attempt and indeterminate_action_ids', holds: (event) => isNumber(event.attempt) && isTexts(event.indeterminate_action_ids) },
  SchedulerStopped: { what: 'reason and action_instance_id', holds: (event) => isText(event.reason) && isText(event.action_instance_id) },
  IndeterminateActionResolved: { what: 'action_instance_id', holds: (event) => isText(event.action_instance_id) },
  SchedulerRestarted: { what: 'nothing', holds: () => true },
  ExecutionGenerationAdvanced: { what: 'execution_generation', holds: (event) => isNumber(event.execution_generation) },
  SchedulerCheckpointed: {
    what: "a state that is a scheduler's state (attempts_started, execution_generation, in_flight, last_tick, status, stopped_by, unresolved)",
    holds: (event) => SchedulerStateDataCodec.is(event.state),
  },
};

/** Every scheduler event type. */
export const SCHEDULER_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(FOLDED_MEMBERS));

/**
 * Why the scheduler's fold cannot take a stored event's data, or undefined when it is a scheduler event
 * holding the members the fold reads. Replay trusts stored events otherwise; a fold of members of other
 * kinds would not fail but leave a state no history gives. Two events an attempt, one check each.
 */
export const foldedMembersRefusal = (data: unknown): string | undefined => {
  const type = typeof data === 'object' && data !== null ? (data as Members).type : undefined;
  const folded = typeof type === 'string' && Object.hasOwn(FOLDED_MEMBERS, type) ? FOLDED_MEMBERS[type as SchedulerEvent['type']] : undefined;
  if (folded === undefined) return `expected a scheduler event, whose type is one of ${[...SCHEDULER_EVENT_TYPES].join(', ')}`;
  return folded.holds(data as Members) ? undefined : `expected a ${type as string} event to hold ${folded.what} as the scheduler writes them`;
};
