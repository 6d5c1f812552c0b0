import { toolActionInstanceId } from '../addresses';
import type { RecoverInvocation } from './commands';
import { CLOSED, decided, refuse, type Decision } from './decision';
import type { InvocationEvent, ToolActionSettled } from './events';
import { refusal } from './refusal-codes';

/**
 * The part of an invocation's state that recovery after a restart reads (docs/rules.md, recovery): which tool
 * actions are still unsettled and in which phase, and which settled indeterminate without being resolved.
 * It is a second, much smaller fold of the same stream the invocation decider folds, so recovery can
 * decide from a snapshot of it (the open-invocations view keeps one per open invocation) instead of
 * reading and folding every interrupted invocation's whole stream. `decideRecovery` decides exactly what
 * the invocation decider decides for `RecoverInvocation`; a property spec holds the two together.
 */

export interface UnsettledToolAction {
  readonly actionInstanceId: string;
  readonly phase: 'admitted' | 'dispatched';
}

export type InterruptedInvocation =
  | { readonly status: 'unopened' }
  | {
      readonly status: 'open' | 'closed';
      readonly invocationId: string;
      /** Tool actions admitted so far: the next admission's ordinal is one more. */
      readonly admitted: number;
      /** In admission order. */
      readonly unsettled: readonly UnsettledToolAction[];
      /** Settled indeterminate and not yet resolved by an operator, in the order they settled. */
      readonly unresolvedIndeterminate: readonly string[];
    };

/**
 * The events this fold reads, and only the fields it reads: every `InvocationEvent` is one, so the
 * fold runs over parsed events, and a reader that knows an admission's id without parsing its event
 * (ids are deterministic, `toolActionInstanceId`) can hand in just that.
 */
export type InterruptedInvocationEvent =
  | { readonly type: 'InvocationOpened'; readonly invocation_action_instance_id: string }
  | { readonly type: 'InvocationActivated' }
  | { readonly type: 'ToolActionAdmitted'; readonly action_instance_id: string }
  | { readonly type: 'ToolActionDispatched'; readonly action_instance_id: string }
  | { readonly type: 'ToolActionSettled'; readonly action_instance_id: string; readonly settlement: ToolActionSettled['settlement'] }
  | { readonly type: 'ToolActionResolved'; readonly action_instance_id: string }
  | { readonly type: 'InvocationClosed' };

export const initialInterruptedInvocation = (): InterruptedInvocation => UNOPENED;

const UNOPENED: InterruptedInvocation = { status: 'unopened' };
const NONE: readonly never[] = [];

const without = <T>(items: readonly T[], matches: (item: T) => boolean): readonly T[] => {
  const index = items.findIndex(matches);
  if (index < 0) return items;
  const rest = items.slice(0, index).concat(items.slice(index + 1));
  return rest.length === 0 ? NONE : rest;
};

export const evolveInterrupted = (state: InterruptedInvocation, event: InterruptedInvocationEvent): InterruptedInvocation => {
  if (event.type === 'InvocationOpened') {
    return { status: 'open', invocationId: event.invocation_action_instance_id, admitted: 0, unsettled: NONE, unresolvedIndeterminate: NONE };
  }
  if (state.status === 'unopened') return state;
  const { invocationId, admitted, unsettled, unresolvedIndeterminate } = state;
  switch (event.type) {
    case 'InvocationActivated':
      return state;
    case 'ToolActionAdmitted':
      return {
        status: state.status,
        invocationId,
        admitted: admitted + 1,
        unsettled: unsettled.concat({ actionInstanceId: event.action_instance_id, phase: 'admitted' }),
        unresolvedIndeterminate,
      };
    case 'ToolActionDispatched':
      return {
        status: state.status,
        invocationId,
        admitted,
        unsettled: unsettled.map((action) =>
          action.actionInstanceId === event.action_instance_id ? { actionInstanceId: action.actionInstanceId, phase: 'dispatched' } : action,
        ),
        unresolvedIndeterminate,
      };
    case 'ToolActionSettled':
      return {
        status: state.status,
        invocationId,
        admitted,
        unsettled: without(unsettled, (action) => action.actionInstanceId === event.action_instance_id),
        unresolvedIndeterminate:
          event.settlement === 'indeterminate' ? unresolvedIndeterminate.concat(event.action_instance_id) : unresolvedIndeterminate,
      };
    case 'ToolActionResolved':
      return {
        status: state.status,
        invocationId,
        admitted,
        unsettled,
        unresolvedIndeterminate: without(unresolvedIndeterminate, (id) => id === event.action_instance_id),
      };
    case 'InvocationClosed':
      return { status: 'closed', invocationId, admitted, unsettled, unresolvedIndeterminate };
  }
};

/**
 * A recorded event of the invocation's stream as this fold reads it, or undefined when the fold ignores
 * it. Only the data of dispatches, settlements and resolutions is read (a lazily parsed event is parsed
 * only for those): an admission's id follows from the count of admissions before it
 * (`toolActionInstanceId`), and the opening's from the invocation's stream, so the largest events of an
 * invocation are never parsed.
 */
export const interruptedEventOf = (
  recorded: { readonly type: string; readonly data: unknown },
  state: InterruptedInvocation,
  invocationId: string,
): InterruptedInvocationEvent | undefined => {
  switch (recorded.type) {
    case 'InvocationOpened':
      return { type: 'InvocationOpened', invocation_action_instance_id: invocationId };
    case 'ToolActionAdmitted':
      return state.status === 'unopened' ? undefined : { type: 'ToolActionAdmitted', action_instance_id: toolActionInstanceId(invocationId, state.admitted + 1) };
    case 'ToolActionDispatched':
    case 'ToolActionSettled':
    case 'ToolActionResolved':
      return recorded.data as InterruptedInvocationEvent;
    case 'InvocationClosed':
      return CLOSED_EVENT;
    default:
      return undefined;
  }
};

const CLOSED_EVENT: InterruptedInvocationEvent = { type: 'InvocationClosed' };

/**
 * The settlements of an invocation's unsettled tool actions when it closes (docs/rules.md, failure row 7; also failure row 8) or is
 * recovered (section 6): undispatched ones are withheld, dispatched ones without outcome indeterminate.
 * Actions in any other phase are skipped, so a full record list can be handed in.
 *
 * These events and recovery's closing are built with their members in canonical (sorted) order, so
 * canonicalJson writes them with JSON.stringify rather than sorting and concatenating: recovery
 * appends three of them for each interrupted invocation.
 */
export const leftoverSettlements = (
  invocationId: string,
  actions: readonly { readonly actionInstanceId: string; readonly phase: string }[],
  at: string,
  recovered: boolean,
): InvocationEvent[] => {
  const events: InvocationEvent[] = [];
  for (const action of actions) {
    if (action.phase === 'admitted') {
      events.push({
        action_instance_id: action.actionInstanceId,
        at,
        invocation_action_instance_id: invocationId,
        reason: recovered ? 'recovered' : 'invocation_closed',
        settlement: 'withheld',
        type: 'ToolActionSettled',
      });
    } else if (action.phase === 'dispatched') {
      events.push({
        action_instance_id: action.actionInstanceId,
        at,
        invocation_action_instance_id: invocationId,
        reason: recovered ? 'dispatched without outcome when the engine restarted' : 'dispatched without outcome when the invocation returned',
        settlement: 'indeterminate',
        type: 'ToolActionSettled',
      });
    }
  }
  return events;
};

/** What the invocation decider decides for `RecoverInvocation`, from the interrupted-invocation fold alone. */
export const decideRecovery = (command: RecoverInvocation, state: InterruptedInvocation): Decision => {
  if (state.status === 'closed') return refuse('recover', refusal('invocation_closed', 'the invocation has returned; its port is closed'));
  if (state.status === 'unopened') {
    return refuse('recover', refusal('state_conflict', 'the invocation is not opened: only an opened invocation is recovered'));
  }
  const events = leftoverSettlements(state.invocationId, state.unsettled, command.at, true);
  events.push({ at: command.at, invocation_action_instance_id: state.invocationId, outcome: 'threw', recovered: true, type: 'InvocationClosed' });
  return decided(events, CLOSED);
};

/** Decides only `RecoverInvocation`: the decider recovery runs over an invocation's stream. */
export const interruptedInvocationDecider = {
  initialState: initialInterruptedInvocation,
  evolve: evolveInterrupted,
  decide: decideRecovery,
};
