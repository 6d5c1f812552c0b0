import * as t from 'io-ts';
import { endOfWholeCharacters, LONE_SURROGATE } from '../unicode-text';

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
  (value) => value.length > 0 && value.length <= MAX_TEXT_LENGTH && !LONE_SURROGATE.test(value),
  `non-empty string of at most ${MAX_TEXT_LENGTH} characters, each a whole character`,
);

export const boundedList = <C extends t.Mixed>(codec: C) =>
  t.refinement(t.readonlyArray(codec), (values) => values.length <= MAX_LIST_ENTRIES, `list of at most ${MAX_LIST_ENTRIES} entries`);

export const BoundedTexts = boundedList(BoundedText);

/** A reason kept whole when short, else cut to the cap and marked; never refused, since it may be all an operator gets. */
export const boundedReason = (given: string): string => {
  // A lone half of a surrogate pair becomes U+FFFD: the reason is kept, as text UTF-8 can hold.
  const reason = LONE_SURROGATE.test(given) ? given.replace(new RegExp(LONE_SURROGATE.source, 'gu'), '\ufffd') : given;
  if (reason.length <= MAX_REASON_LENGTH) return reason;
  return `${reason.slice(0, endOfWholeCharacters(reason, MAX_REASON_LENGTH - 14))} …(truncated)`;
};
