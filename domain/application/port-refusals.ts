import { toolAction, ToolActionRequestCodec, type InvocationPortValues, type InvocationState, type PortCommand, type RefusalCode, type Settlement } from '../invocation';

/** The port call a refusal answered, as telemetry names it. */
export type PortCallName = 'admit' | 'admit_and_dispatch' | 'dispatch' | 'complete' | 'report_unknown' | 'cancel';

/**
 * A settlement (complete, report_unknown, cancel) that came too late: after the invocation returned,
 * or for an action already settled (a tool that answers after it was reported unknown, say).
 */
export interface LateSettlement {
  /** How the engine had already settled the action, when it had. */
  readonly action_settlement?: Settlement;
}

/**
 * A port call the engine refused. A refusal appends nothing to the log (docs/rules.md, history), so
 * this is the only trace it leaves. It carries identities and the fixed code, never the refusal's
 * message (which may quote what the harness sent) nor anything of a request that did not decode.
 */
export interface ToolCallRefused {
  readonly at: string;
  readonly episode_id: string;
  readonly invocation_action_instance_id: string;
  readonly port_call: PortCallName;
  readonly refusal: RefusalCode;
  /** Of an admission request that decoded. */
  readonly tool_call_id?: string;
  /** Of an admission request that decoded, or of the admitted action the call named. */
  readonly tool_affordance_address?: string;
  /** Of a call on an action. */
  readonly action_instance_id?: string;
  readonly late_settlement?: LateSettlement;
}

/** Sees each refused port call; it cannot change the answer. */
export type RefusalListener = (refused: ToolCallRefused) => void;

const PORT_CALLS: { readonly [K in PortCommand['type']]: PortCallName } = {
  AdmitToolAction: 'admit',
  AdmitAndDispatchToolAction: 'admit_and_dispatch',
  DispatchToolAction: 'dispatch',
  CompleteToolAction: 'complete',
  ReportToolActionUnknown: 'report_unknown',
  CancelToolAction: 'cancel',
};

const SETTLING: ReadonlySet<PortCommand['type']> = new Set(['CompleteToolAction', 'ReportToolActionUnknown', 'CancelToolAction']);

/**
 * What a listener is told of a refused command of the port of the invocation `values` describe;
 * `state` is the invocation's state the refusal was decided on.
 */
export const toolCallRefused = (values: InvocationPortValues, command: PortCommand, refusal: RefusalCode, state: InvocationState): ToolCallRefused => {
  const port_call = PORT_CALLS[command.type];
  const base = { at: command.at, episode_id: values.episode_id, invocation_action_instance_id: values.invocation_action_instance_id, port_call, refusal };
  if (command.type === 'AdmitToolAction' || command.type === 'AdmitAndDispatchToolAction') {
    const request = command.request;
    return ToolActionRequestCodec.is(request)
      ? { ...base, tool_call_id: request.tool_call_id, tool_affordance_address: request.tool_affordance_address }
      : base;
  }
  const action = toolAction(state, command.actionInstanceId);
  const settledAs = action?.phase === 'settled' ? action.settlement.kind : undefined;
  const late = SETTLING.has(command.type) && (refusal === 'invocation_closed' || settledAs !== undefined);
  return {
    ...base,
    action_instance_id: command.actionInstanceId,
    ...(action === undefined ? {} : { tool_affordance_address: action.request.tool_affordance_address }),
    ...(late ? { late_settlement: settledAs === undefined ? {} : { action_settlement: settledAs } } : {}),
  };
};
