import fc from 'fast-check';
import {
  decideRecovery,
  evolve,
  evolveInterrupted,
  initialInterruptedInvocation,
  initialState,
  invocationDecider,
  type InterruptedInvocation,
  type InvocationEvent,
  type InvocationState,
  type RecoverInvocation,
} from '../../../domain/invocation';
import { toolActionInstanceId } from '../../../domain/addresses';
import { canonicalJson } from '../../../domain/integrity/canonical-json';
import type { JsonValue } from '../../../domain/ports/event-store';
import { run } from './arbitraries';
import { AT, INVOCATION_ID, activeInvocation, admissionContext, admit, dispatch, reportUnknown, request, resolve } from './fixtures';

const recover: RecoverInvocation = { type: 'RecoverInvocation', at: AT };

/**
 * Recovery decides from the interrupted-invocation fold (a snapshot the open-invocations view keeps)
 * instead of the whole invocation state: both must decide the same for RecoverInvocation, at every
 * point of any history.
 */

type Folds = { full: InvocationState; interrupted: InterruptedInvocation };

const foldBoth = (events: readonly InvocationEvent[], from: Folds = { full: initialState(), interrupted: initialInterruptedInvocation() }): Folds => {
  let { full, interrupted } = from;
  for (const event of events) {
    full = evolve(full, event);
    interrupted = evolveInterrupted(interrupted, event);
  }
  return { full, interrupted };
};

describe('the interrupted-invocation fold', () => {
  it('decides RecoverInvocation exactly as the invocation decider does, after every step of random port calls', () => {
    fc.assert(
      fc.property(run, (input) => {
        let folds = foldBoth([]);
        expect(decideRecovery(recover, folds.interrupted)).toEqual(invocationDecider.decide(recover, folds.full));
        folds = foldBoth(activeInvocation(admissionContext({ perInvocation: input.perInvocation, concurrent: input.concurrent })), folds);
        for (const command of [...input.calls, input.ending, ...input.afterClose]) {
          const decision = invocationDecider.decide(command, folds.full);
          if (decision.answer.kind !== 'refused') {
            for (const event of decision.events) {
              // The open-invocations view derives an admission's id from the count instead of parsing it.
              if (event.type === 'ToolActionAdmitted' && folds.interrupted.status !== 'unopened') {
                expect(event.action_instance_id).toBe(toolActionInstanceId(INVOCATION_ID, folds.interrupted.admitted + 1));
              }
              folds = foldBoth([event], folds);
            }
          }
          expect(decideRecovery(recover, folds.interrupted)).toEqual(invocationDecider.decide(recover, folds.full));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps unsettled actions in admission order with their phase, and unresolved indeterminate ones', () => {
    let state = foldBoth(activeInvocation()).full;
    const events: InvocationEvent[] = [...activeInvocation()];
    for (const command of [admit(request('c1')), admit(request('c2')), dispatch(1), reportUnknown(1), dispatch(2)]) {
      const decision = invocationDecider.decide(command, state);
      if (decision.answer.kind === 'refused') throw new Error(decision.answer.refusal.code);
      for (const event of decision.events) {
        events.push(event);
        state = evolve(state, event);
      }
    }
    const interrupted = foldBoth(events).interrupted;
    expect(interrupted).toEqual({
      status: 'open',
      invocationId: INVOCATION_ID,
      admitted: 2,
      unsettled: [{ actionInstanceId: toolActionInstanceId(INVOCATION_ID, 2), phase: 'dispatched' }],
      unresolvedIndeterminate: [toolActionInstanceId(INVOCATION_ID, 1)],
    });
    const resolved = invocationDecider.decide(resolve(1), state);
    if (resolved.answer.kind === 'refused') throw new Error(resolved.answer.refusal.code);
    expect(foldBoth([...events, ...resolved.events]).interrupted).toMatchObject({ unresolvedIndeterminate: [] });
  });

  it('builds recovery\'s events with their members in canonical order, so their canonical JSON is JSON.stringify\'s', () => {
    const interrupted: InterruptedInvocation = {
      status: 'open',
      invocationId: INVOCATION_ID,
      admitted: 2,
      unsettled: [
        { actionInstanceId: toolActionInstanceId(INVOCATION_ID, 1), phase: 'admitted' },
        { actionInstanceId: toolActionInstanceId(INVOCATION_ID, 2), phase: 'dispatched' },
      ],
      unresolvedIndeterminate: [],
    };
    const decision = decideRecovery(recover, interrupted);
    expect(decision.events.map((event) => event.type)).toEqual(['ToolActionSettled', 'ToolActionSettled', 'InvocationClosed']);
    for (const event of decision.events) expect(JSON.stringify(event)).toBe(canonicalJson(event as unknown as JsonValue));
  });
});
