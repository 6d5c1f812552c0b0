import type { ActionResult, InvocationPortValues, RefusalCode, ToolActionRequest } from '../../domain/invocation';

/**
 * The port a harness holds while its invocation runs (SPEC.md section 5). Every call is async, returns
 * only after its event is durable, and answers a domain refusal with a value, never by throwing.
 */

export type Refused = { readonly refusal: RefusalCode; readonly message: string };

export type AdmitResult =
  | { readonly admitted: true; readonly action_instance_id: string }
  | ({ readonly admitted: false } & Refused);

/** Start tool effects only after `accepted: true`. */
export type DispatchReceipt = { readonly accepted: true } | ({ readonly accepted: false } & Refused);

/** The answer to complete, reportUnknown and cancel. */
export type SettleReceipt = { readonly accepted: true } | ({ readonly accepted: false } & Refused);

export interface InvocationToolActionPort extends InvocationPortValues {
  admit(request: ToolActionRequest): Promise<AdmitResult>;
  dispatch(actionInstanceId: string): Promise<DispatchReceipt>;
  complete(actionInstanceId: string, result: ActionResult): Promise<SettleReceipt>;
  reportUnknown(actionInstanceId: string, reason: string): Promise<SettleReceipt>;
  cancel(actionInstanceId: string): Promise<SettleReceipt>;
}
