import fc from 'fast-check';
import {
  admittedCount,
  toolAction,
  evolve,
  foldInvocationEvents,
  InvocationEventCodec,
  invocationDecider,
  invocationHistory,
  openCount,
  toolActions,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationState,
  type RefusalCode,
} from '../../../domain/invocation';
import { admissionRequest, run } from './arbitraries';
import { AT, activeInvocation, admissionContext, admit, admitAndDispatch } from './fixtures';

/** Properties over random sequences of port calls (issue 2). */

interface Step {
  readonly command: InvocationCommand;
  readonly before: InvocationState;
  readonly refused: boolean;
  readonly events: readonly InvocationEvent[];
  readonly after: InvocationState;
}

interface Trace {
  readonly limits: { readonly perInvocation: number; readonly concurrent: number };
  readonly steps: readonly Step[];
  readonly events: readonly InvocationEvent[];
  readonly state: InvocationState;
}

/** A stable text of a state, Maps and Sets included, to see whether deciding changed it. */
const snapshot = (state: InvocationState): string =>
  JSON.stringify(state, (_key, value: unknown) =>
    value instanceof Map ? [...value.entries()] : value instanceof Set ? [...value.values()] : value,
  );

type Run = typeof run extends fc.Arbitrary<infer T> ? T : never;

const execute = (input: Run): Trace => {
  const limits = { perInvocation: input.perInvocation, concurrent: input.concurrent };
  const events: InvocationEvent[] = activeInvocation(admissionContext(limits));
  let state = foldInvocationEvents(events);
  const steps: Step[] = [];
  for (const command of [...input.calls, input.ending, ...input.afterClose]) {
    const before = state;
    const beforeText = snapshot(state);
    const decision = invocationDecider.decide(command, state);
    if (decision.answer.kind === 'refused') {
      expect(decision.events).toEqual([]);
      expect(snapshot(state)).toBe(beforeText);
      steps.push({ command, before, refused: true, events: [], after: state });
      continue;
    }
    for (const event of decision.events) {
      events.push(event);
      state = evolve(state, event);
    }
    steps.push({ command, before, refused: false, events: decision.events, after: state });
  }
  return { limits, steps, events, state };
};

/** What a call (or calls in turn) did: its refusal, or the events it yields and the state after them. */
type Answer =
  | { readonly refused: RefusalCode }
  | { readonly events: readonly InvocationEvent[]; readonly state: string };

const foldOnto = (state: InvocationState, events: readonly InvocationEvent[]): InvocationState =>
  events.reduce((folded, event) => evolve(folded, event), state);

/** AdmitAndDispatchToolAction in one decision. */
const combinedAnswer = (request: unknown, state: InvocationState): Answer => {
  const decision = invocationDecider.decide(admitAndDispatch(request), state);
  if (decision.answer.kind === 'refused') return { refused: decision.answer.refusal.code };
  return { events: decision.events, state: snapshot(foldOnto(state, decision.events)) };
};

/**
 * AdmitToolAction, then DispatchToolAction of the action admitted (or of the original one, when the
 * tool_call_id was replayed). A refused dispatch after a replay records nothing, as the combined call.
 */
const twoCallsAnswer = (request: unknown, state: InvocationState): Answer => {
  const admission = invocationDecider.decide(admit(request), state);
  const answer = admission.answer;
  if (answer.kind === 'refused') return { refused: answer.refusal.code };
  const admitted = foldOnto(state, admission.events);
  const event = admission.events[0];
  const actionInstanceId =
    answer.kind === 'admitted' ? answer.admission.action_instance_id : answer.kind === 'replayed' ? answer.original.actionInstanceId : undefined;
  if (actionInstanceId === undefined) throw new Error(`admission answered ${answer.kind}`);
  // The answer names the action the events (or, for a replay, the state) hold.
  if (answer.kind === 'admitted') expect(event).toBe(answer.admission);
  else expect(toolAction(admitted, actionInstanceId)?.toolCallId).toBe((request as { tool_call_id: string }).tool_call_id);
  const dispatch = invocationDecider.decide({ type: 'DispatchToolAction', at: AT, actionInstanceId }, admitted);
  if (dispatch.answer.kind === 'refused') {
    expect(admission.events).toEqual([]);
    return { refused: dispatch.answer.refusal.code };
  }
  return { events: [...admission.events, ...dispatch.events], state: snapshot(foldOnto(admitted, dispatch.events)) };
};

const property = (check: (trace: Trace) => void) =>
  fc.assert(
    fc.property(run, (input) => check(execute(input))),
    { numRuns: 200 },
  );

describe('invocation properties over random port calls', () => {
  it('the admitted count never exceeds the per-invocation limit', () => {
    property((trace) => {
      for (const step of trace.steps) expect(admittedCount(step.after)).toBeLessThanOrEqual(trace.limits.perInvocation);
    });
  });

  it('the open count never exceeds the concurrency limit', () => {
    property((trace) => {
      for (const step of trace.steps) expect(openCount(step.after)).toBeLessThanOrEqual(trace.limits.concurrent);
    });
  });

  it('after close every admitted action is settled exactly once', () => {
    property((trace) => {
      const admittedIds = trace.events.flatMap((event) => (event.type === 'ToolActionAdmitted' ? [event.action_instance_id] : []));
      const settledIds = trace.events.flatMap((event) => (event.type === 'ToolActionSettled' ? [event.action_instance_id] : []));
      expect([...settledIds].sort()).toEqual([...admittedIds].sort());
      expect(openCount(trace.state)).toBe(0);
    });
  });

  it('a dispatched action never settles withheld', () => {
    property((trace) => {
      const dispatchedIds = new Set(
        trace.events.flatMap((event) => (event.type === 'ToolActionDispatched' ? [event.action_instance_id] : [])),
      );
      for (const event of trace.events) {
        if (event.type === 'ToolActionSettled' && dispatchedIds.has(event.action_instance_id)) {
          expect(event.settlement).not.toBe('withheld');
        }
      }
    });
  });

  it('a refused call changes no state and records nothing', () => {
    property((trace) => {
      for (const step of trace.steps.filter((candidate) => candidate.refused)) {
        expect(step.after).toBe(step.before);
        expect(step.events).toEqual([]);
      }
      expect(trace.steps.filter((step) => !step.refused).flatMap((step) => step.events)).toHaveLength(trace.events.length - 2);
    });
  });

  it('folding the same events always yields the same state', () => {
    property((trace) => {
      const once = foldInvocationEvents(trace.events);
      const twice = foldInvocationEvents(trace.events);
      expect(snapshot(once)).toBe(snapshot(twice));
      expect(snapshot(once)).toBe(snapshot(trace.state));
    });
  });

  it('the history has exactly 3 events per settled tool action, plus the outer triple on a valid return', () => {
    property((trace) => {
      const settled = trace.events.filter((event) => event.type === 'ToolActionSettled').length;
      const closed = trace.events.find((event) => event.type === 'InvocationClosed');
      const outer = closed !== undefined && closed.type === 'InvocationClosed' && closed.outcome === 'returned' ? 3 : 0;
      expect(invocationHistory(trace.state)).toHaveLength(3 * settled + outer);
    });
  });

  it('admitted ids are <invocation id>:tool=<ordinal>, ordinals from 1 without gaps', () => {
    property((trace) => {
      const admissions = trace.events.flatMap((event) => (event.type === 'ToolActionAdmitted' ? [event] : []));
      admissions.forEach((event, index) => {
        expect(event.admission_ordinal).toBe(index + 1);
        expect(event.action_instance_id).toBe(`${event.invocation_action_instance_id}:tool=${index + 1}`);
      });
    });
  });

  it('every stored event decodes with the event codecs', () => {
    property((trace) => {
      for (const event of trace.events) expect(InvocationEventCodec.decode(JSON.parse(JSON.stringify(event)))._tag).toBe('Right');
    });
  });

  it('AdmitAndDispatchToolAction is AdmitToolAction then DispatchToolAction: same events, same state, same refusal', () => {
    fc.assert(
      fc.property(run, admissionRequest, (input, request) => {
        const trace = execute(input);
        // every state the trace passed through: active, at its limits, closed
        for (const step of [...trace.steps.map((candidate) => candidate.before), trace.state]) {
          expect(combinedAnswer(request, step)).toEqual(twoCallsAnswer(request, step));
          // replays of every call admitted so far, whatever phase its action is in
          for (const action of toolActions(step)) {
            expect(combinedAnswer(action.request, step)).toEqual(twoCallsAnswer(action.request, step));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
