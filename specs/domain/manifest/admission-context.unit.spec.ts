import { isRight } from 'fp-ts/Either';
import { AdmissionContextCodec } from '../../../domain/invocation/admission-context';
import { buildAdmissionContext } from '../../../domain/manifest';
import { loadScenario } from '../../../domain/scenario';
import { AFFORDANCE_ADDRESS, AGENT_ADDRESS, PORTAL_HTTP, POLICY_ADDRESS, Yaml, portalProbeWith } from '../scenario/scenario-fixtures';
import { compiledPortalProbe, manifestWith } from './manifest-fixtures';

const PROBE = 'participant.action-contract.probe-customer-portal-login';

describe('building the admission context of a policy participant', () => {
  it('carries the bindings, offers, evidence, withheld refs and limits of the example', () => {
    const context = buildAdmissionContext(compiledPortalProbe(), manifestWith(() => undefined), POLICY_ADDRESS, AGENT_ADDRESS);
    expect(isRight(AdmissionContextCodec.decode(context))).toBe(true);
    expect(context).toEqual({
      policy_profile: 'participant-autonomous-execution/v1',
      limits: { max_tool_actions_per_invocation: 16, max_concurrent_tool_actions_per_invocation: 4 },
      affordance_bindings: [
        {
          tool_affordance_address: AFFORDANCE_ADDRESS,
          action_contract_address: PROBE,
          participant_address: AGENT_ADDRESS,
          observation_boundary_addresses: ['participant.observation-boundary.participant-view'],
          target_addresses: [PORTAL_HTTP],
        },
      ],
      shared_time_bound_actions: [],
      offers: [
        {
          binding_id: 'portal-probe-http',
          action_contract_address: PROBE,
          target_addresses: [PORTAL_HTTP],
          participant_implementation_ref: 'participant-agent-runner',
          constraint_refs: ['time.constraint.probe-cadence'],
          evidence_refs: ['content.participant-observation'],
          max_action_attempts: 3,
          max_in_flight: 1,
          timeout_seconds: 30,
          max_retries: 0,
        },
      ],
      boundary_evidence_refs: { 'participant.observation-boundary.participant-view': ['content.participant-observation'] },
      withheld_refs: ['content.operator-notes'],
    });
  });

  it("narrows to the participant's bindings and the policy implementation's offers", () => {
    const text = portalProbeWith((doc: Yaml) => {
      doc.agents['second-agent'] = { entity: 'portal-prober', actions: ['probe-customer-portal-login'], observation_boundaries: ['participant-view'] };
      doc.behavior_specifications['participant-behavior'].participant_refs.push('second-agent');
    });
    const result = loadScenario(text);
    if (!result.ok) throw new Error('expected a compiled scenario');
    const manifest = manifestWith((doc: Yaml) => {
      const offers = doc.participant_runtime.execution_bindings;
      offers.push({ ...offers[0], binding_id: 'other-runner-probe', participant_implementation_ref: 'other-runner' });
    });
    const context = buildAdmissionContext(result.compiled, manifest, POLICY_ADDRESS, 'participant.behavior.second-agent');
    expect(context.affordance_bindings.map((b) => b.participant_address)).toEqual(['participant.behavior.second-agent']);
    expect(context.offers.map((o) => o.binding_id)).toEqual(['portal-probe-http']);
  });

  it('throws for a participant outside the policy, a programming error', () => {
    expect(() =>
      buildAdmissionContext(compiledPortalProbe(), manifestWith(() => undefined), POLICY_ADDRESS, 'participant.behavior.nobody'),
    ).toThrow(/not a participant of policy/);
  });
});
