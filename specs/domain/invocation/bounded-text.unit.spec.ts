import { MAX_LIST_ENTRIES, MAX_REASON_LENGTH, MAX_TEXT_LENGTH } from '../../../domain/invocation/bounded-text';
import { activeInvocation, admitted, closeReturned, complete, dispatched, outerResult, reportUnknown, spec, toolResult } from './fixtures';

/** What a harness hands the engine as free text is bounded, and no result value is echoed into a stored reason. */
describe('harness text fields', () => {
  const MARKER = 'tool-output-7f3a9c';
  const inFlight = [...activeInvocation(), admitted(1), dispatched(1)];

  it('cuts a long reportUnknown reason to the cap, keeping its start', () => {
    const events = spec.given(inFlight).when(reportUnknown(1, `timeout ${'x'.repeat(500_000)}`)).events();
    const reason = (events[0] as { reason: string }).reason;
    expect(reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
    expect(reason).toMatch(/^timeout x+ …\(truncated\)$/);
  });

  it('never leaves half of a surrogate pair in a reason, cut or given: an export must be UTF-8', () => {
    const cut = (spec.given(inFlight).when(reportUnknown(1, `${'r'.repeat(MAX_REASON_LENGTH - 15)}🙂${'x'.repeat(100)}`)).events()[0] as { reason: string }).reason;
    expect(cut).toBe(`${'r'.repeat(MAX_REASON_LENGTH - 15)} …(truncated)`);
    const given = (spec.given(inFlight).when(reportUnknown(1, 'a\ud800b\udc00c🙂')).events()[0] as { reason: string }).reason;
    expect(given).toBe('a\ufffdb\ufffdc🙂');
  });

  it('keeps a short reason as it is', () => {
    expect(spec.given(inFlight).when(reportUnknown(1, 'timeout')).events()).toMatchObject([{ reason: 'timeout' }]);
  });

  it('names what is wrong with an outcome by its place in the result, briefly', () => {
    const notAResult = spec.given(inFlight).when(complete(1, [] as never)).thenRefuses('outcome_invalid');
    expect(notAResult.message).toBe('the outcome is not a ParticipantActionResultModel (expected ParticipantActionResultModel at (root), got []); the action stays dispatched: report unknown instead');
    const blank = spec.given(inFlight).when(complete(1, { ...toolResult(1), observations: [''] })).thenRefuses('outcome_invalid');
    expect(blank.message).toContain(' at observations.0, got ""');
  });

  it('refuses a tool result whose observations exceed the caps: outcome_invalid, nothing stored', () => {
    const tooLong = { ...toolResult(1), observations: ['o'.repeat(MAX_TEXT_LENGTH + 1)] };
    const tooMany = { ...toolResult(1), observations: Array.from({ length: MAX_LIST_ENTRIES + 1 }, (_, i) => `o${i}`) };
    const tooManyDiagnostics = { ...toolResult(1), diagnostics: Array.from({ length: MAX_LIST_ENTRIES + 1 }, (_, i) => `d${i}`) };
    for (const result of [tooLong, tooMany, tooManyDiagnostics]) spec.given(inFlight).when(complete(1, result)).thenRefuses('outcome_invalid');
    const atTheCap = { ...toolResult(1), observations: ['o'.repeat(MAX_TEXT_LENGTH)] };
    expect(spec.given(inFlight).when(complete(1, atTheCap)).events()).toHaveLength(1);
  });

  it('never echoes a value of a bad outer result into InvocationClosed.reason', () => {
    const given = activeInvocation();
    const foreignIdentity = { ...outerResult(), action_instance_id: MARKER };
    const undecodable = { ...outerResult(), status: MARKER };
    const oversized = { ...outerResult(), observations: [`${MARKER}${'y'.repeat(MAX_TEXT_LENGTH)}`] };
    for (const result of [foreignIdentity, undecodable, oversized]) {
      const closed = spec.given(given).when(closeReturned(result)).events().find((event) => event.type === 'InvocationClosed');
      expect(closed).toMatchObject({ outcome: 'invalid_result' });
      expect(JSON.stringify(closed)).not.toContain(MARKER);
      expect((closed as { reason: string }).reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
    }
  });
});
