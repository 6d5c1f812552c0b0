import { autonomousPolicyAddress } from '../addresses';
import { Diagnostic, error } from './diagnostics';
import { AutonomousExecutionDocument, PROFILE_V1, ScenarioDocument } from './document';
import { namedParticipants } from './participants';
import { resolveName } from './references';

const V1_SELECTION_STRATEGY = 'ordered_cycle';

/** A v1 policy names the time progression policy that advances its clock, and that policy runs on the same clock. */
const checkProgression = (
  scenario: ScenarioDocument,
  policy: AutonomousExecutionDocument,
  address: string,
  at: string,
): Diagnostic[] => {
  if (policy.progression_policy_ref === undefined) {
    return [
      error(
        'participant.autonomous-execution-incomplete',
        address,
        `a ${PROFILE_V1} policy names how its clock advances: set ${at}.progression_policy_ref to one of time_progression_policies.`,
      ),
    ];
  }
  const name = resolveName(policy.progression_policy_ref, 'time_progression_policies', scenario.time_progression_policies);
  if (name === undefined || policy.clock_ref === undefined) return []; // unresolved refs are reported by checkReferences
  const progressionClock = scenario.time_progression_policies?.[name]?.['clock_ref'];
  const policyClock = resolveName(policy.clock_ref, 'clocks', scenario.clocks);
  const clock = typeof progressionClock === 'string' ? resolveName(progressionClock, 'clocks', scenario.clocks) : undefined;
  if (policyClock === undefined || clock === policyClock) return [];
  return [
    error(
      'participant.autonomous-progression-clock-mismatch',
      address,
      `time progression policy "${name}" advances clock "${String(progressionClock ?? '(none)')}" but the policy runs on "${policyClock}": set time_progression_policies.${name}.clock_ref to the policy's clock.`,
    ),
  ];
};

/** Checks each autonomous policy (docs/rules.md, authoring): v1 runs an ordered cycle on one cadence. */
export const checkPolicies = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const policy = spec.autonomous_execution;
    if (policy === undefined) continue;
    const address = autonomousPolicyAddress(specName);
    const at = `behavior_specifications.${specName}.autonomous_execution`;
    const profile = policy.profile ?? PROFILE_V1;

    if (namedParticipants(spec, scenario).length === 0) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-incomplete',
          address,
          `the policy has no participants: list the agents it runs in behavior_specifications.${specName}.participant_refs.`,
        ),
      );
    }

    const specActions = (spec.action_contract_refs ?? []).map((r) => resolveName(r, 'action_contracts', scenario.action_contracts));
    for (const ref of policy.action_order ?? []) {
      const action = resolveName(ref, 'action_contracts', scenario.action_contracts);
      if (action !== undefined && !specActions.includes(action)) {
        diagnostics.push(
          error(
            'participant.autonomous-execution-outside-specification',
            address,
            `${at}.action_order names "${action}", which is not in behavior_specifications.${specName}.action_contract_refs: add it there or remove it from the order.`,
          ),
        );
      }
    }
    const boundary = resolveName(policy.observation_boundary_ref, 'observation_boundaries', scenario.observation_boundaries);
    const specBoundaries = (spec.observation_boundary_refs ?? []).map((r) =>
      resolveName(r, 'observation_boundaries', scenario.observation_boundaries),
    );
    if (boundary !== undefined && !specBoundaries.includes(boundary)) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-outside-specification',
          address,
          `${at}.observation_boundary_ref names "${boundary}", which is not in behavior_specifications.${specName}.observation_boundary_refs: add it there or use one of the specification's boundaries.`,
        ),
      );
    }

    if (profile !== PROFILE_V1) continue;
    if (policy.clock_ref === undefined) {
      diagnostics.push(error('participant.autonomous-execution-incomplete', address, `a ${PROFILE_V1} policy runs on a shared clock: set ${at}.clock_ref.`));
    }
    diagnostics.push(...checkProgression(scenario, policy, address, at));
    if (policy.selection_strategy !== undefined && policy.selection_strategy !== V1_SELECTION_STRATEGY) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-strategy-invalid',
          address,
          `${at}.selection_strategy is "${policy.selection_strategy}", but a ${PROFILE_V1} policy selects its actions as "${V1_SELECTION_STRATEGY}": set it to ${V1_SELECTION_STRATEGY} or leave it out.`,
        ),
      );
    }
    if ((policy.action_order ?? []).length === 0) {
      diagnostics.push(
        error('participant.autonomous-execution-incomplete', address, `a ${PROFILE_V1} policy cycles over its actions in order: list at least one action contract in ${at}.action_order.`),
      );
    }
    const cadences: string[] = [];
    for (const ref of policy.temporal_constraint_refs ?? []) {
      const name = resolveName(ref, 'temporal_constraints', scenario.temporal_constraints);
      if (name !== undefined && scenario.temporal_constraints?.[name]?.constraint_kind === 'cadence') cadences.push(name);
    }
    if (cadences.length !== 1) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-cadence-invalid',
          address,
          `a ${PROFILE_V1} policy needs exactly one cadence constraint in ${at}.temporal_constraint_refs, found ${cadences.length}${cadences.length > 0 ? ` (${cadences.join(', ')})` : ''}: keep exactly one.`,
        ),
      );
      continue;
    }
    const cadenceName = cadences[0] as string;
    const cadence = scenario.temporal_constraints?.[cadenceName];
    if (cadence?.cadence_ticks === undefined) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-cadence-invalid',
          address,
          `cadence constraint "${cadenceName}" has no cadence_ticks: set temporal_constraints.${cadenceName}.cadence_ticks to an integer >= 1.`,
        ),
      );
    }
    const policyClock = policy.clock_ref === undefined ? undefined : resolveName(policy.clock_ref, 'clocks', scenario.clocks);
    const cadenceClock = cadence?.clock_ref === undefined ? undefined : resolveName(cadence.clock_ref, 'clocks', scenario.clocks);
    if (policyClock !== undefined && cadenceClock !== policyClock) {
      diagnostics.push(
        error(
          'participant.autonomous-execution-cadence-invalid',
          address,
          `cadence constraint "${cadenceName}" runs on clock "${cadence?.clock_ref ?? '(none)'}" but the policy runs on "${policyClock}": set temporal_constraints.${cadenceName}.clock_ref to the policy's clock.`,
        ),
      );
    }
  }
  return diagnostics;
};
