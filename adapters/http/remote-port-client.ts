import type { ActionResult, InvocationPortValues, ToolActionRequest } from '../../domain/invocation';
import { describeValidationErrors } from '../../domain/invocation';
import type { AdmitAndDispatchResult, AdmitResult, DispatchReceipt, InvocationToolActionPort, SettleReceipt } from '../../domain/ports/invocation-port';
import type { RemoteAccess } from '../../domain/ports/remote-ports';
import { bearer, remotePath, RemotePortValuesCodec, type RemoteVerb } from './remote-access';

/** The remote port refused the caller (no, wrong or foreign secret, or a closed invocation's). */
export class RemotePortRefused extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(`the remote port refused the call (${status} ${error}): ${message}`);
    this.name = 'RemotePortRefused';
  }
}

/**
 * The port of an invocation running in another process, over the remote port's HTTP transport.
 * Domain refusals come back as values, as from the in-process port; a refused secret or a broken
 * transport throws.
 */
export class RemoteInvocationPort implements InvocationToolActionPort {
  readonly invocation_action_instance_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly participant_implementation_ref: string;
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
  readonly observation_point: string;

  private constructor(
    private readonly access: RemoteAccess,
    values: InvocationPortValues,
  ) {
    this.invocation_action_instance_id = values.invocation_action_instance_id;
    this.participant_address = values.participant_address;
    this.episode_id = values.episode_id;
    this.participant_implementation_ref = values.participant_implementation_ref;
    this.execution_scope_ref = values.execution_scope_ref;
    this.execution_generation = values.execution_generation;
    this.observation_point = values.observation_point;
  }

  /** Reads the port values with the secret; fails when the secret is refused. */
  static async connect(access: RemoteAccess): Promise<RemoteInvocationPort> {
    const body = await send(access, 'values', undefined);
    const values = RemotePortValuesCodec.decode(body);
    if (values._tag === 'Left') throw new Error(`the remote port sent no port values: ${describeValidationErrors(values.left)}`);
    return new RemoteInvocationPort(access, values.right);
  }

  admit(request: ToolActionRequest): Promise<AdmitResult> {
    return send(this.access, 'admit', { request }) as Promise<AdmitResult>;
  }

  admitAndDispatch(request: ToolActionRequest): Promise<AdmitAndDispatchResult> {
    return send(this.access, 'admit-and-dispatch', { request }) as Promise<AdmitAndDispatchResult>;
  }

  dispatch(actionInstanceId: string): Promise<DispatchReceipt> {
    return send(this.access, 'dispatch', { action_instance_id: actionInstanceId }) as Promise<DispatchReceipt>;
  }

  complete(actionInstanceId: string, result: ActionResult): Promise<SettleReceipt> {
    return send(this.access, 'complete', { action_instance_id: actionInstanceId, result }) as Promise<SettleReceipt>;
  }

  reportUnknown(actionInstanceId: string, reason: string): Promise<SettleReceipt> {
    return send(this.access, 'report-unknown', { action_instance_id: actionInstanceId, reason }) as Promise<SettleReceipt>;
  }

  cancel(actionInstanceId: string): Promise<SettleReceipt> {
    return send(this.access, 'cancel', { action_instance_id: actionInstanceId }) as Promise<SettleReceipt>;
  }
}

const send = async (access: RemoteAccess, verb: RemoteVerb, body: unknown): Promise<unknown> => {
  const response = await fetch(`${access.url}${remotePath(access.invocation_action_instance_id, verb)}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: bearer(access.secret), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await response.json()) as { error?: string; message?: string };
  if (!response.ok) {
    throw new RemotePortRefused(response.status, payload.error ?? 'unknown', payload.message ?? 'no message');
  }
  return payload;
};
