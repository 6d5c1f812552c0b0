import { foldInvocationEvents, invocationDecider, type InvocationState } from '../../../domain/invocation';
import { admissionIndexOf } from '../../../domain/invocation/admission-index';
import { activeInvocation, admissionContext, admit, admitted, request } from './fixtures';

/**
 * Open invocations of one policy-participant share the admission index built for their admission
 * context object; a context decoded from storage (another object, same content) gets its own index
 * and judges the same way.
 */
const indexOf = (state: InvocationState) => {
  if (state.status !== 'opened') throw new Error('the invocation did not open');
  return admissionIndexOf(state);
};

describe('the admission index of open invocations', () => {
  it('is shared by invocations opened with the same admission context object', () => {
    const context = admissionContext();
    const first = foldInvocationEvents(activeInvocation(context));
    const second = foldInvocationEvents(activeInvocation(context));
    expect(indexOf(second)).toBe(indexOf(first));
  });

  it('is built again for an equal context that is another object, and admits the same request the same way', () => {
    const context = admissionContext();
    const copy = JSON.parse(JSON.stringify(context)) as typeof context;
    const live = foldInvocationEvents(activeInvocation(context));
    const restored = foldInvocationEvents(activeInvocation(copy));
    expect(indexOf(restored)).not.toBe(indexOf(live));
    expect(invocationDecider.decide(admit(request('call-1')), restored)).toEqual(invocationDecider.decide(admit(request('call-1')), live));
  });

  it('keeps each invocation\'s admissions its own when the index is shared', () => {
    const context = admissionContext();
    const first = foldInvocationEvents([...activeInvocation(context), admitted(1)]);
    const second = foldInvocationEvents(activeInvocation(context));
    expect(first.status === 'opened' && first.toolActions.length).toBe(1);
    expect(second.status === 'opened' && second.toolActions.length).toBe(0);
    expect(second.status === 'opened' && second.positionByToolCallId.size).toBe(0);
  });
});
