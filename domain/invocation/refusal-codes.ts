import * as t from 'io-ts';

/**
 * Every code a port call can refuse with, listed once. Admission codes are in the order of
 * the admission rules ("first failure is the refusal"; docs/rules.md, admission rule 1 onward); the rest answer the other port calls.
 */
export const REFUSAL_CODES = [
  // admission, rules 1 to 11 in order
  'invocation_inactive',
  'invocation_closed',
  'request_invalid',
  'request_conflict',
  'identity_mismatch',
  'stale_generation',
  'affordance_unbound',
  'boundary_unbound',
  'target_unbound',
  'shared_time_bound',
  'offer_unmatched',
  'policy_unsupported',
  'crossing_policy_installed',
  'limit_exhausted',
  'concurrency_exhausted',
  'ledger_unavailable',
  // dispatch, complete, report unknown, cancel, resolve
  'action_unknown',
  'state_conflict',
  'outcome_invalid',
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

export const RefusalCodeCodec = t.keyof(
  Object.fromEntries(REFUSAL_CODES.map((code) => [code, null])) as { [K in RefusalCode]: null },
);

/** A domain refusal: a fixed code and a sentence for the person reading logs. */
export interface Refusal {
  readonly code: RefusalCode;
  readonly message: string;
}

export const refusal = (code: RefusalCode, message: string): Refusal => ({ code, message });
