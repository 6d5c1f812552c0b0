import { AdmittedToolClient, type McpToolCaller, type ToolMapping } from '../../../adapters/mcp';
import type { AdmitAndDispatchResult, AdmitResult, DispatchReceipt, InvocationToolActionPort, SettleReceipt } from '../../../domain/application';

/**
 * Which port calls AdmittedToolClient makes: admitAndDispatch (one durable append) when the call has no
 * AbortSignal, admit then dispatch when it has one, so that an abort between the two withholds the
 * action instead of dispatching it.
 */

const INVOCATION = 'participant.autonomous-execution.s:participant.behavior.a:1';
const ACTION = `${INVOCATION}:tool=1`;

const MAPPING: ToolMapping = {
  probe_login: {
    tool_affordance_address: 'participant.behavior-specification.s.tool-affordance.t',
    action_contract_address: 'participant.action-contract.x',
    observation_boundary_address: 'participant.observation-boundary.b',
    target_addresses: ['provision.node.n'],
  },
};

/** A port that answers every call as told and records which calls were made. */
const recordingPort = (answers: { readonly admitAndDispatch?: AdmitAndDispatchResult; readonly dispatch?: DispatchReceipt } = {}) => {
  const calls: string[] = [];
  const accepted: SettleReceipt = { accepted: true };
  const port: InvocationToolActionPort = {
    invocation_action_instance_id: INVOCATION,
    participant_address: 'participant.behavior.a',
    episode_id: 'episode-1',
    participant_implementation_ref: 'participant-implementation:harness@1',
    execution_scope_ref: 'participant.autonomous-execution.s',
    execution_generation: 0,
    observation_point: 'time.clock.k@segment=0,tick=1',
    admit: async (): Promise<AdmitResult> => {
      calls.push('admit');
      return { admitted: true, action_instance_id: ACTION };
    },
    admitAndDispatch: async () => {
      calls.push('admitAndDispatch');
      return answers.admitAndDispatch ?? { admitted: true, action_instance_id: ACTION, accepted: true };
    },
    dispatch: async () => {
      calls.push('dispatch');
      return answers.dispatch ?? accepted;
    },
    complete: async () => {
      calls.push('complete');
      return accepted;
    },
    reportUnknown: async () => {
      calls.push('reportUnknown');
      return accepted;
    },
    cancel: async () => {
      calls.push('cancel');
      return accepted;
    },
  };
  return { port, calls };
};

const server = (): McpToolCaller & { readonly ran: () => number } => {
  let ran = 0;
  return {
    callTool: (async () => {
      ran += 1;
      return { content: [] };
    }) as unknown as McpToolCaller['callTool'],
    listTools: (async () => ({ tools: [] })) as unknown as McpToolCaller['listTools'],
    ran: () => ran,
  };
};

describe('AdmittedToolClient port calls', () => {
  it('without an AbortSignal: admitAndDispatch, the tool, complete', async () => {
    const { port, calls } = recordingPort();
    const tools = server();
    const call = await new AdmittedToolClient(tools, port, MAPPING).callTool({ name: 'probe_login', tool_call_id: 'c-1' });
    expect(call).toMatchObject({ outcome: 'succeeded', action_instance_id: ACTION });
    expect(calls).toEqual(['admitAndDispatch', 'complete']);
    expect(tools.ran()).toBe(1);
  });

  it('with an AbortSignal: admit, dispatch, the tool, complete', async () => {
    const { port, calls } = recordingPort();
    const call = await new AdmittedToolClient(server(), port, MAPPING).callTool(
      { name: 'probe_login', tool_call_id: 'c-1' },
      { signal: new AbortController().signal },
    );
    expect(call).toMatchObject({ outcome: 'succeeded', action_instance_id: ACTION });
    expect(calls).toEqual(['admit', 'dispatch', 'complete']);
  });

  it('a refused admission: nothing runs, nothing is withheld', async () => {
    const { port, calls } = recordingPort({
      admitAndDispatch: { admitted: false, refusal: 'limit_exhausted', message: 'no more' },
    });
    const tools = server();
    const call = await new AdmittedToolClient(tools, port, MAPPING).callTool({ name: 'probe_login', tool_call_id: 'c-1' });
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'limit_exhausted' });
    expect(call).not.toHaveProperty('action_instance_id');
    expect(calls).toEqual(['admitAndDispatch']);
    expect(tools.ran()).toBe(0);
  });

  it('admitted and not dispatched (a replayed tool_call_id): the tool does not run, the action is withheld if it can be', async () => {
    const { port, calls } = recordingPort({
      admitAndDispatch: { admitted: true, action_instance_id: ACTION, accepted: false, refusal: 'state_conflict', message: 'dispatched already' },
    });
    const tools = server();
    const call = await new AdmittedToolClient(tools, port, MAPPING).callTool({ name: 'probe_login', tool_call_id: 'c-1' });
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'state_conflict', action_instance_id: ACTION });
    expect(calls).toEqual(['admitAndDispatch', 'cancel']);
    expect(tools.ran()).toBe(0);
  });

  it('with an AbortSignal that fires after admission: the action is withheld, never dispatched', async () => {
    const { port, calls } = recordingPort();
    const controller = new AbortController();
    const admit = port.admit.bind(port);
    port.admit = async (request) => {
      const answer = await admit(request);
      controller.abort();
      return answer;
    };
    const tools = server();
    const call = await new AdmittedToolClient(tools, port, MAPPING).callTool({ name: 'probe_login', tool_call_id: 'c-1' }, { signal: controller.signal });
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'call_aborted', action_instance_id: ACTION });
    expect(calls).toEqual(['admit', 'cancel']);
    expect(tools.ran()).toBe(0);
  });
});
