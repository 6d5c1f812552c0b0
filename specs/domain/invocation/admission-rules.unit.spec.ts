import type { AdmissionContext, InvocationEvent, RefusalCode } from '../../../domain/invocation';
import {
  AFFORDANCE,
  AT,
  INVOCATION_ID,
  PORTAL_NODE,
  PROBE_LOGIN,
  activated,
  admissionContext,
  admit,
  admitAndDispatch,
  admitted,
  completed,
  dispatched,
  opened,
  request,
  spec,
  threw,
  toolId,
} from './fixtures';

/**
 * SPEC.md section 5: the admission rules in order, first failure wins. Each code is provoked by the
 * smallest change to an admissible scenario that breaks exactly its rule, and then shown to lose to
 * the code before it when both rules are broken.
 */

interface Scenario {
  readonly context: AdmissionContext;
  readonly activated: boolean;
  readonly closed: boolean;
  /** Given admissions before the request: each open, or settled (dispatched and completed). */
  readonly prior: readonly { readonly toolCallId: string; readonly targets: readonly string[]; readonly settled: boolean }[];
  readonly request: Record<string, unknown>;
  /** The engine's switch when the request arrives (rule 9 reads the command, not the context). */
  readonly crossingPolicyInstalled: boolean;
}

/** A target no affordance binding names. */
const BILLING_NODE = 'provision.node.billing';

const baseScenario = (): Scenario => ({
  context: admissionContext({ perInvocation: 3, concurrent: 2 }),
  activated: true,
  closed: false,
  prior: [],
  request: { ...request('call-1') },
  crossingPolicyInstalled: false,
});

const givenEvents = (scenario: Scenario): InvocationEvent[] => {
  const events: InvocationEvent[] = [opened(scenario.context)];
  if (scenario.activated) events.push(activated);
  scenario.prior.forEach((prior, index) => {
    const ordinal = index + 1;
    events.push(admitted(ordinal, { ...request(prior.toolCallId), target_addresses: prior.targets }));
    if (prior.settled) events.push(dispatched(ordinal), completed(ordinal));
  });
  if (scenario.closed) events.push(threw);
  return events;
};

const withContext = (scenario: Scenario, change: Partial<AdmissionContext>): Scenario => ({
  ...scenario,
  context: { ...scenario.context, ...change },
});
const withRequest = (scenario: Scenario, change: Record<string, unknown>): Scenario => ({
  ...scenario,
  request: { ...scenario.request, ...change },
});
const withPrior = (scenario: Scenario, prior: Scenario['prior']): Scenario => ({
  ...scenario,
  prior: [...scenario.prior, ...prior],
});

/** The admission codes in rule order, each with the smallest change that breaks only its rule. */
const breakers: readonly (readonly [RefusalCode, (scenario: Scenario) => Scenario])[] = [
  ['invocation_inactive', (s) => ({ ...s, activated: false })],
  ['invocation_closed', (s) => ({ ...s, closed: true })],
  ['request_invalid', (s) => withRequest(s, { execution_generation: 'zero' })],
  ['request_conflict', (s) => withPrior(s, [{ toolCallId: 'call-1', targets: [PORTAL_NODE], settled: false }])],
  ['identity_mismatch', (s) => withRequest(s, { episode_id: 'episode-other' })],
  ['stale_generation', (s) => withRequest(s, { execution_generation: 1 })],
  ['affordance_unbound', (s) => withRequest(s, { tool_affordance_address: `${AFFORDANCE}-unknown` })],
  ['boundary_unbound', (s) => withRequest(s, { observation_boundary_address: 'participant.observation-boundary.operator-view' })],
  [
    'target_unbound',
    // the offer covers the foreign target, so only the binding (rule 6) is broken, not rule 8
    (s) =>
      withRequest(
        withContext(s, {
          offers: s.context.offers.map((offer) => ({ ...offer, target_addresses: [...offer.target_addresses, BILLING_NODE] })),
        }),
        { target_addresses: [BILLING_NODE] },
      ),
  ],
  ['shared_time_bound', (s) => withContext(s, { shared_time_bound_actions: [PROBE_LOGIN] })],
  [
    'offer_unmatched',
    (s) =>
      withContext(s, {
        offers: s.context.offers.map((offer) => ({ ...offer, participant_implementation_ref: 'other-runtime' })),
      }),
  ],
  ['policy_unsupported', (s) => withContext(s, { policy_profile: 'participant-autonomous-execution/v3' })],
  ['crossing_policy_installed', (s) => ({ ...s, crossingPolicyInstalled: true })],
  [
    'limit_exhausted',
    (s) =>
      withPrior(s, [
        { toolCallId: 'prior-a', targets: [PORTAL_NODE], settled: true },
        { toolCallId: 'prior-b', targets: [PORTAL_NODE], settled: true },
        { toolCallId: 'prior-c', targets: [PORTAL_NODE], settled: true },
      ]),
  ],
  [
    'concurrency_exhausted',
    (s) =>
      withPrior(s, [
        { toolCallId: 'prior-d', targets: [PORTAL_NODE], settled: false },
        { toolCallId: 'prior-e', targets: [PORTAL_NODE], settled: false },
      ]),
  ],
];

const decideScenario = (scenario: Scenario) =>
  spec.given(givenEvents(scenario)).when(admit(scenario.request, scenario.crossingPolicyInstalled));

describe('admission rules (SPEC.md section 5)', () => {
  it('admits the unbroken scenario as <invocation id>:tool=1', () => {
    decideScenario(baseScenario()).then([
      {
        type: 'ToolActionAdmitted',
        at: AT,
        invocation_action_instance_id: INVOCATION_ID,
        action_instance_id: toolId(1),
        tool_call_id: 'call-1',
        admission_ordinal: 1,
        request: request('call-1'),
        offer_binding_id: 'offer-probe-login',
      },
    ]);
  });

  describe.each(breakers.map(([code, breaker], index) => [code, breaker, index] as const))(
    '%s',
    (code, breaker, index) => {
      it(`is the refusal when only its rule is broken`, () => {
        decideScenario(breaker(baseScenario())).thenRefuses(code);
      });

      it(`is AdmitAndDispatchToolAction's refusal too`, () => {
        const scenario = breaker(baseScenario());
        spec.given(givenEvents(scenario)).when(admitAndDispatch(scenario.request, scenario.crossingPolicyInstalled)).thenRefuses(code);
      });

      const [earlierCode, earlierBreaker] = breakers[index - 1] ?? [];
      // the two codes of rule 1 cannot both hold: an invocation is either inactive or closed
      const comparable = earlierBreaker !== undefined && !(earlierCode === 'invocation_inactive' && code === 'invocation_closed');
      if (comparable && earlierCode !== undefined) {
        it(`loses to ${earlierCode}, the rule before it`, () => {
          decideScenario(earlierBreaker(breaker(baseScenario()))).thenRefuses(earlierCode);
        });
      }
    },
  );

  it('request_invalid also loses to invocation_inactive', () => {
    const scenario = withRequest({ ...baseScenario(), activated: false }, { execution_generation: 'zero' });
    decideScenario(scenario).thenRefuses('invocation_inactive');
  });

  it('refuses an invocation that was never opened as inactive', () => {
    spec.given([]).when(admit()).thenRefuses('invocation_inactive');
  });

  describe('request_invalid tells what is wrong and where', () => {
    it.each([
      ['not an object', null, 'expected a tool action request object, got null'],
      ['empty tool_call_id', { ...request(), tool_call_id: '' }, 'expected a non-empty string at tool_call_id, got ""'],
      ['a target that is a number', { ...request(), target_addresses: [PORTAL_NODE, 42] }, 'expected a non-empty string at target_addresses.1, got 42'],
      ['a negative generation', { ...request(), execution_generation: -1 }, 'expected an integer >= 0 at execution_generation, got -1'],
      ['a tool_call_id over 256 characters', { ...request(), tool_call_id: 'c'.repeat(257) }, 'tool_call_id has 257 characters; at most 256 are admitted'],
      ['a tool_call_id with a line break', { ...request(), tool_call_id: 'call-1\nVerification: sound' }, 'tool_call_id "call-1\\nVerification: sound" holds a control character; none is admitted'],
      ['a tool_call_id with half a surrogate pair', { ...request(), tool_call_id: 'a\ud800b' }, 'tool_call_id "a\\ud800b" holds half of a surrogate pair, which is no character (and not UTF-8); none is admitted'],
      ['a tool_call_id with an escape sequence', { ...request(), tool_call_id: '\u001b[31mred' }, 'tool_call_id "\\u001b[31mred" holds a control character; none is admitted'],
    ])('%s', (_name, raw, message) => {
      const refusal = spec.given([opened(), activated]).when(admit(raw)).thenRefuses('request_invalid');
      expect(refusal.message).toBe(message);
    });
  });

  it('admits a tool_call_id of 256 characters, any printable ones', () => {
    const toolCallId = `é-${'c'.repeat(254)}`;
    const events = spec.given([opened(), activated]).when(admit({ ...request(), tool_call_id: toolCallId })).events();
    expect(events.map((event) => [event.type, 'request' in event ? event.request.tool_call_id : undefined])).toEqual([['ToolActionAdmitted', toolCallId]]);
  });

  it('identity_mismatch covers participant, episode, implementation, invocation and scope', () => {
    for (const field of [
      'participant_address',
      'episode_id',
      'participant_implementation_ref',
      'invocation_action_instance_id',
      'execution_scope_ref',
    ]) {
      const refusal = decideScenario(withRequest(baseScenario(), { [field]: 'someone.else' })).thenRefuses('identity_mismatch');
      expect(refusal.message).toContain(field);
    }
  });

  it('affordance_unbound when two bindings match (exactly one must)', () => {
    const base = baseScenario();
    const binding = base.context.affordance_bindings[0]!;
    decideScenario(withContext(base, { affordance_bindings: [binding, binding] })).thenRefuses('affordance_unbound');
  });

  it('offer_unmatched when two offers cover the request (exactly one must)', () => {
    const base = baseScenario();
    const offer = base.context.offers[0]!;
    decideScenario(withContext(base, { offers: [offer, { ...offer, binding_id: 'offer-twin' }] })).thenRefuses('offer_unmatched');
  });

  it('offer_unmatched when the requested targets are not a subset of the offer targets', () => {
    const base = baseScenario();
    const offer = base.context.offers[0]!;
    decideScenario(withContext(base, { offers: [{ ...offer, target_addresses: [PORTAL_NODE] }] })).thenRefuses('offer_unmatched');
  });

  it('admits again once an open action settles under the concurrency limit', () => {
    const scenario = withPrior(baseScenario(), [
      { toolCallId: 'prior-d', targets: [PORTAL_NODE], settled: true },
      { toolCallId: 'prior-e', targets: [PORTAL_NODE], settled: false },
    ]);
    expect(decideScenario(scenario).events()).toHaveLength(1);
  });

  it('never stores fields the request does not define (tool arguments stay out of events)', () => {
    const [event] = decideScenario(withRequest(baseScenario(), { arguments: { password: 'hunter2' } })).events();
    expect(JSON.stringify(event)).not.toContain('hunter2');
  });
});
