import * as t from 'io-ts';

/**
 * Caps on the free text a harness hands the engine. A harness that copies tool output into a result's
 * observations or a reason would otherwise store it verbatim; the caps keep any such leak small and
 * every stored record bounded. The figures are recorded in docs/decisions.md.
 */
export const MAX_TEXT_LENGTH = 512;
export const MAX_LIST_ENTRIES = 64;
export const MAX_REASON_LENGTH = 256;

export const BoundedText = t.refinement(
  t.string,
  (value) => value.length > 0 && value.length <= MAX_TEXT_LENGTH,
  `non-empty string of at most ${MAX_TEXT_LENGTH} characters`,
);

export const boundedList = <C extends t.Mixed>(codec: C) =>
  t.refinement(t.readonlyArray(codec), (values) => values.length <= MAX_LIST_ENTRIES, `list of at most ${MAX_LIST_ENTRIES} entries`);

export const BoundedTexts = boundedList(BoundedText);

/** A reason kept whole when short, else cut to the cap and marked; never refused, since it may be all an operator gets. */
export const boundedReason = (reason: string): string =>
  reason.length <= MAX_REASON_LENGTH ? reason : `${reason.slice(0, MAX_REASON_LENGTH - 14)} …(truncated)`;
