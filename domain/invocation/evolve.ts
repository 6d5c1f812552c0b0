import type {
  InvocationClosed,
  InvocationEvent,
  ToolActionAdmitted,
  ToolActionDispatched,
  ToolActionResolved,
  ToolActionSettled,
} from './events';
import type {
  DispatchedToolAction,
  InvocationClosure,
  InvocationLifecycle,
  InvocationState,
  OpenedInvocation,
  SettledToolAction,
  ToolActionIdentity,
  ToolActionRecord,
  ToolActionSettlement,
  UnopenedInvocation,
} from './state';

const UNOPENED: UnopenedInvocation = { status: 'unopened' };

export const initialState = (): InvocationState => UNOPENED;

/** The parts of an opened invocation an event changes; what is left out stays as it was. */
interface OpenedChanges {
  readonly lifecycle?: InvocationLifecycle;
  readonly toolActions?: readonly ToolActionRecord[];
  readonly positionByToolCallId?: ReadonlyMap<string, number>;
  readonly positionByActionId?: ReadonlyMap<string, number>;
  readonly openCount?: number;
  readonly unresolvedIndeterminateCount?: number;
}

/** A copy of an opened invocation with the parts that change replaced (a literal, no spread). */
const nextOpened = (state: OpenedInvocation, changes: OpenedChanges): OpenedInvocation => ({
  status: 'opened',
  openedAt: state.openedAt,
  portValues: state.portValues,
  outerAction: state.outerAction,
  admissionContext: state.admissionContext,
  lifecycle: changes.lifecycle ?? state.lifecycle,
  toolActions: changes.toolActions ?? state.toolActions,
  positionByToolCallId: changes.positionByToolCallId ?? state.positionByToolCallId,
  positionByActionId: changes.positionByActionId ?? state.positionByActionId,
  openCount: changes.openCount ?? state.openCount,
  unresolvedIndeterminateCount: changes.unresolvedIndeterminateCount ?? state.unresolvedIndeterminateCount,
});

/** What a tool action's record becomes when it moves on: dispatched, or settled (again, once resolved). */
type NextPhase =
  | { readonly phase: 'dispatched'; readonly dispatchedAt: string }
  | Omit<SettledToolAction, keyof ToolActionIdentity>;

/**
 * The action's next record: its identity (admission fields) copied from the current record, here only,
 * and the fields of the phase it moves to (literals, no spread).
 */
const nextRecord = (current: ToolActionIdentity, next: NextPhase): DispatchedToolAction | SettledToolAction =>
  next.phase === 'dispatched'
    ? {
        phase: 'dispatched',
        actionInstanceId: current.actionInstanceId,
        toolCallId: current.toolCallId,
        admissionOrdinal: current.admissionOrdinal,
        request: current.request,
        offerBindingId: current.offerBindingId,
        admittedAt: current.admittedAt,
        dispatchedAt: next.dispatchedAt,
      }
    : {
        phase: 'settled',
        actionInstanceId: current.actionInstanceId,
        toolCallId: current.toolCallId,
        admissionOrdinal: current.admissionOrdinal,
        request: current.request,
        offerBindingId: current.offerBindingId,
        admittedAt: current.admittedAt,
        dispatchedAt: next.dispatchedAt,
        settledAt: next.settledAt,
        settlement: next.settlement,
        resolution: next.resolution,
      };

const replaceAt = (
  actions: readonly ToolActionRecord[],
  position: number,
  record: ToolActionRecord,
): readonly ToolActionRecord[] => {
  const copy = actions.slice();
  copy[position] = record;
  return copy;
};

const evolveAdmitted = (state: OpenedInvocation, event: ToolActionAdmitted): OpenedInvocation => {
  const position = state.toolActions.length;
  const actions = state.toolActions.slice();
  actions.push({
    phase: 'admitted',
    actionInstanceId: event.action_instance_id,
    toolCallId: event.tool_call_id,
    admissionOrdinal: event.admission_ordinal,
    request: event.request,
    offerBindingId: event.offer_binding_id,
    admittedAt: event.at,
  });
  return nextOpened(state, {
    toolActions: actions,
    positionByToolCallId: new Map(state.positionByToolCallId).set(event.tool_call_id, position),
    positionByActionId: new Map(state.positionByActionId).set(event.action_instance_id, position),
    openCount: state.openCount + 1,
  });
};

const evolveDispatched = (state: OpenedInvocation, event: ToolActionDispatched): OpenedInvocation => {
  const position = state.positionByActionId.get(event.action_instance_id);
  const current = position === undefined ? undefined : state.toolActions[position];
  if (position === undefined || current === undefined) return state;
  return nextOpened(state, {
    toolActions: replaceAt(state.toolActions, position, nextRecord(current, { phase: 'dispatched', dispatchedAt: event.at })),
  });
};

const settlementOf = (event: ToolActionSettled): ToolActionSettlement => {
  switch (event.settlement) {
    case 'completed':
      return { kind: 'completed', actionResult: event.action_result };
    case 'withheld':
      return { kind: 'withheld', reason: event.reason };
    case 'indeterminate':
      return { kind: 'indeterminate', reason: event.reason };
  }
};

const evolveSettled = (state: OpenedInvocation, event: ToolActionSettled): OpenedInvocation => {
  const position = state.positionByActionId.get(event.action_instance_id);
  const current = position === undefined ? undefined : state.toolActions[position];
  if (position === undefined || current === undefined || current.phase === 'settled') return state;
  const settled = nextRecord(current, {
    phase: 'settled',
    dispatchedAt: current.phase === 'dispatched' ? current.dispatchedAt : null,
    settledAt: event.at,
    settlement: settlementOf(event),
    resolution: null,
  });
  return nextOpened(state, {
    toolActions: replaceAt(state.toolActions, position, settled),
    openCount: state.openCount - 1,
    unresolvedIndeterminateCount: state.unresolvedIndeterminateCount + (event.settlement === 'indeterminate' ? 1 : 0),
  });
};

const evolveResolved = (state: OpenedInvocation, event: ToolActionResolved): OpenedInvocation => {
  const position = state.positionByActionId.get(event.action_instance_id);
  const current = position === undefined ? undefined : state.toolActions[position];
  if (position === undefined || current === undefined || current.phase !== 'settled') return state;
  if (current.settlement.kind !== 'indeterminate' || current.resolution !== null) return state;
  const resolved = nextRecord(current, {
    phase: 'settled',
    dispatchedAt: current.dispatchedAt,
    settledAt: current.settledAt,
    settlement: current.settlement,
    resolution: { effect: event.effect, evidenceRef: event.evidence_ref, resolvedAt: event.at },
  });
  return nextOpened(state, {
    toolActions: replaceAt(state.toolActions, position, resolved),
    unresolvedIndeterminateCount: state.unresolvedIndeterminateCount - 1,
  });
};

const closureOf = (event: InvocationClosed): InvocationClosure => {
  switch (event.outcome) {
    case 'returned':
      return { outcome: 'returned', actionResult: event.action_result };
    case 'threw':
      return { outcome: 'threw' };
    case 'invalid_result':
      return { outcome: 'invalid_result', reason: event.reason };
  }
};

const evolveClosed = (state: OpenedInvocation, event: InvocationClosed): OpenedInvocation =>
  nextOpened(state, {
    lifecycle: {
      status: 'closed',
      activatedAt: state.lifecycle.status === 'inactive' ? null : state.lifecycle.activatedAt,
      closedAt: event.at,
      closure: closureOf(event),
      recovered: event.recovered,
    },
  });

/**
 * Shared by every invocation before its first admission (admissions copy them, never write to them),
 * so an open invocation without tool actions holds no maps or arrays of its own.
 */
const NO_POSITIONS: ReadonlyMap<string, number> = new Map();
const NO_TOOL_ACTIONS: readonly ToolActionRecord[] = Object.freeze([]);
const INACTIVE: InvocationLifecycle = Object.freeze({ status: 'inactive' });

/**
 * Folds one event into the state. Events were decided against the state they follow, so evolve
 * trusts them; an event that does not fit (a stream written by something else) leaves the state as
 * it is rather than inventing one.
 */
export const evolve = (state: InvocationState, event: InvocationEvent): InvocationState => {
  if (event.type === 'InvocationOpened') {
    if (state.status !== 'unopened') return state;
    return {
      status: 'opened',
      openedAt: event.at,
      portValues: event.port_values,
      outerAction: event.outer_action,
      admissionContext: event.admission_context,
      lifecycle: INACTIVE,
      toolActions: NO_TOOL_ACTIONS,
      positionByToolCallId: NO_POSITIONS,
      positionByActionId: NO_POSITIONS,
      openCount: 0,
      unresolvedIndeterminateCount: 0,
    };
  }
  if (state.status === 'unopened') return state;
  switch (event.type) {
    case 'InvocationActivated':
      if (state.lifecycle.status !== 'inactive') return state;
      return nextOpened(state, { lifecycle: { status: 'active', activatedAt: event.at } });
    case 'ToolActionAdmitted':
      return evolveAdmitted(state, event);
    case 'ToolActionDispatched':
      return evolveDispatched(state, event);
    case 'ToolActionSettled':
      return evolveSettled(state, event);
    case 'InvocationClosed':
      return evolveClosed(state, event);
    case 'ToolActionResolved':
      return evolveResolved(state, event);
  }
};

export const foldInvocationEvents = (events: readonly InvocationEvent[]): InvocationState => {
  let state = initialState();
  for (const event of events) state = evolve(state, event);
  return state;
};
