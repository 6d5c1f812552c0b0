import fc from 'fast-check';
import type { InvocationCommand } from '../../../domain/invocation';
import { CREDENTIALS, PORTAL_HTTP, PORTAL_NODE, admit, admitAndDispatch, cancel, closeInvalid, closeReturned, closeThrew, complete, dispatch, recover, reportUnknown, request, resolve, toolResult } from './fixtures';

/** Random port calls on one invocation, valid and not, for the property specs. */

export const ORDINALS = fc.integer({ min: 1, max: 7 });

/** An admission request: mostly valid, sometimes broken in one of a few ways (rules 2, 4, 6). */
export const admissionRequest: fc.Arbitrary<unknown> = fc
  .record({
    toolCallId: fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'),
    targets: fc.constantFrom([PORTAL_HTTP], [PORTAL_NODE], [PORTAL_HTTP, PORTAL_NODE]),
    broken: fc.constantFrom(undefined, 'generation', 'target', 'episode', 'shape'),
  })
  .map(({ toolCallId, targets, broken }): unknown => {
    const req = { ...request(toolCallId), target_addresses: targets };
    switch (broken) {
      case 'generation':
        return { ...req, execution_generation: 4 };
      case 'target':
        return { ...req, target_addresses: ['provision.node.billing'] };
      case 'episode':
        return { ...req, episode_id: 'episode-other' };
      case 'shape':
        return { ...req, target_addresses: 'all' };
      default:
        return req;
    }
  });

export const admitCall: fc.Arbitrary<InvocationCommand> = admissionRequest.map((req) => admit(req));

/** Admission and dispatch in one call, as a harness that asks for both makes it. */
export const admitAndDispatchCall: fc.Arbitrary<InvocationCommand> = admissionRequest.map((req) => admitAndDispatch(req));

export const portCall: fc.Arbitrary<InvocationCommand> = fc.oneof(
  { arbitrary: admitCall, weight: 3 },
  { arbitrary: admitAndDispatchCall, weight: 2 },
  { arbitrary: ORDINALS.map(dispatch), weight: 3 },
  {
    arbitrary: fc
      .tuple(ORDINALS, fc.boolean())
      .map(([ordinal, valid]) => complete(ordinal, valid ? toolResult(ordinal) : { ...toolResult(ordinal), evidence_refs: [CREDENTIALS] })),
    weight: 2,
  },
  { arbitrary: ORDINALS.map((ordinal) => reportUnknown(ordinal)), weight: 1 },
  { arbitrary: ORDINALS.map(cancel), weight: 1 },
  { arbitrary: ORDINALS.map((ordinal) => resolve(ordinal)), weight: 1 },
);

export const ending = fc.constantFrom(closeReturned(), closeThrew, closeInvalid, recover);

export const run = fc.record({
  perInvocation: fc.integer({ min: 1, max: 5 }),
  concurrent: fc.integer({ min: 1, max: 4 }),
  calls: fc.array(portCall, { maxLength: 30 }),
  ending,
  afterClose: fc.array(portCall, { maxLength: 5 }),
});

