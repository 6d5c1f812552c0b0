import type { ActionResult, InvocationPortValues, RefusalCode, ToolActionRequest } from '../invocation';

/**
 * The port a harness holds while its invocation runs (docs/rules.md, port). Every call is async, returns
 * only after its event is durable, and answers a domain refusal with a value, never by throwing.
 */

export type Refused = { readonly refusal: RefusalCode; readonly message: string };

export type AdmitResult =
  | { readonly admitted: true; readonly action_instance_id: string }
  | ({ readonly admitted: false } & Refused);

/** Start tool effects only after `accepted: true`. */
export type DispatchReceipt = { readonly accepted: true } | ({ readonly accepted: false } & Refused);

/**
 * The answer to admitAndDispatch: what admit then dispatch would have answered in turn. Admitted and
 * not accepted happens only for a replayed tool_call_id whose action cannot be dispatched (already
 * dispatched or settled: `state_conflict`), or when the store did not retain the dispatch.
 */
export type AdmitAndDispatchResult =
  | { readonly admitted: true; readonly action_instance_id: string; readonly accepted: true }
  | ({ readonly admitted: true; readonly action_instance_id: string; readonly accepted: false } & Refused)
  | ({ readonly admitted: false } & Refused);

/** The answer to complete, reportUnknown and cancel. */
export type SettleReceipt = { readonly accepted: true } | ({ readonly accepted: false } & Refused);

export interface InvocationToolActionPort extends InvocationPortValues {
  admit(request: ToolActionRequest): Promise<AdmitResult>;
  dispatch(actionInstanceId: string): Promise<DispatchReceipt>;
  /**
   * admit, then dispatch of the admitted action, decided as one decision and made durable by one
   * append (an extra call beside the rules' calls, docs/rules.md, port: a harness that dispatches right after admission waits for
   * one write instead of two). Start tool effects only after `accepted: true`.
   */
  admitAndDispatch(request: ToolActionRequest): Promise<AdmitAndDispatchResult>;
  complete(actionInstanceId: string, result: ActionResult): Promise<SettleReceipt>;
  reportUnknown(actionInstanceId: string, reason: string): Promise<SettleReceipt>;
  cancel(actionInstanceId: string): Promise<SettleReceipt>;
}
