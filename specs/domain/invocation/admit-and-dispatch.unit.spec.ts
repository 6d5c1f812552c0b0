import { toolAction } from '../../../domain/invocation';
import {
  AT,
  INVOCATION_ID,
  PORTAL_NODE,
  activeInvocation,
  admissionContext,
  admit,
  admitAndDispatch,
  admitted,
  completed,
  dispatch,
  dispatched,
  opened,
  request,
  spec,
  threw,
  toolId,
  withheld,
} from './fixtures';

/**
 * AdmitAndDispatchToolAction: admission then dispatch decided as one decision, for a harness that asks
 * for both. It yields what AdmitToolAction then DispatchToolAction would yield, in one append.
 */
describe('AdmitAndDispatchToolAction', () => {
  it('admits and dispatches a new call: ToolActionAdmitted then ToolActionDispatched', () => {
    spec
      .given(activeInvocation())
      .when(admitAndDispatch(request('call-1')))
      .then([
        admitted(1, request('call-1')),
        { type: 'ToolActionDispatched', at: AT, invocation_action_instance_id: INVOCATION_ID, action_instance_id: toolId(1) },
      ]);
  });

  it('yields the events of admit then dispatch, and the same state', () => {
    const combined = spec.given(activeInvocation()).when(admitAndDispatch(request('call-1')));
    const admittedAlone = spec.given(activeInvocation()).when(admit(request('call-1'))).events();
    const dispatchedAfter = spec.given([...activeInvocation(), ...admittedAlone]).when(dispatch(1));
    expect(combined.events()).toEqual([...admittedAlone, ...dispatchedAfter.events()]);
    expect(combined.stateAfter()).toEqual(dispatchedAfter.stateAfter());
    expect(toolAction(combined.stateAfter(), toolId(1))?.phase).toBe('dispatched');
  });

  it('takes the next ordinal after earlier admissions', () => {
    const events = spec
      .given([...activeInvocation(), admitted(1), dispatched(1), completed(1)])
      .when(admitAndDispatch(request('call-2')))
      .events();
    expect(events.map((event) => event.type)).toEqual(['ToolActionAdmitted', 'ToolActionDispatched']);
    expect(events.every((event) => 'action_instance_id' in event && event.action_instance_id === toolId(2))).toBe(true);
  });

  describe('a replayed tool_call_id gets the original admission, then dispatch decides as it would alone', () => {
    it('admitted and not yet dispatched: dispatches the original action', () => {
      spec.given([...activeInvocation(), admitted(1, request('call-1'))]).when(admitAndDispatch(request('call-1'))).then([dispatched(1)]);
    });

    it('already dispatched: state_conflict, nothing recorded, the original stays', () => {
      const given = [...activeInvocation(), admitted(1, request('call-1')), dispatched(1)];
      const replay = spec.given(given).when(admitAndDispatch(request('call-1')));
      replay.thenRefuses('state_conflict');
      // Refused by the dispatch step, with the original record: the port answers it as admitted.
      expect(replay.answer()).toMatchObject({ kind: 'refused', step: 'dispatch', original: toolAction(spec.given(given).state(), toolId(1)) });
    });

    it('already settled (withheld): state_conflict', () => {
      spec
        .given([...activeInvocation(), admitted(1, request('call-1')), withheld(1, 'cancelled')])
        .when(admitAndDispatch(request('call-1')))
        .thenRefuses('state_conflict');
    });

    it('a different request under a known tool_call_id: request_conflict, as admission alone', () => {
      spec
        .given([...activeInvocation(), admitted(1, request('call-1'))])
        .when(admitAndDispatch({ ...request('call-1'), target_addresses: [PORTAL_NODE] }))
        .thenRefuses('request_conflict');
    });
  });

  it('after the invocation closed: invocation_closed, even for a replayed tool_call_id', () => {
    spec.given([...activeInvocation(), admitted(1, request('call-1')), threw]).when(admitAndDispatch(request('call-1'))).thenRefuses('invocation_closed');
  });

  it('before dispatch began: invocation_inactive', () => {
    spec.given([opened()]).when(admitAndDispatch(request('call-1'))).thenRefuses('invocation_inactive');
  });

  it('counts against the limits as an admission does', () => {
    const given = [...activeInvocation(admissionContext({ perInvocation: 3, concurrent: 1 })), admitted(1), dispatched(1)];
    spec.given(given).when(admitAndDispatch(request('call-2'))).thenRefuses('concurrency_exhausted');
  });
});
