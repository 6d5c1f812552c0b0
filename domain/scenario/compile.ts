import {
  actionContractAddress,
  autonomousPolicyAddress,
  behaviorSpecificationAddress,
  clockAddress,
  observationBoundaryAddress,
  participantAddress,
  temporalConstraintAddress,
  toolAffordanceAddress,
} from '../addresses';
import { AffordanceBinding } from '../invocation/admission-context';
import {
  CompiledActionContract,
  CompiledCadence,
  CompiledPolicy,
  CompiledScenario,
  CompiledToolAffordance,
} from './compiled';
import { ActionContractDocument, AutonomousExecutionDocument, PROFILE_V1, ScenarioDocument } from './document';
import { namedParticipants } from './participants';
import { affordanceParticipants } from './validate-affordances';
import { resolveName, resolveTargetRef } from './references';

const unique = (xs: ReadonlyArray<string>): string[] => [...new Set(xs)];

const resolveAll = (
  refs: ReadonlyArray<string> | undefined,
  sectionName: 'agents' | 'action_contracts' | 'observation_boundaries',
  scenario: ScenarioDocument,
): string[] =>
  unique((refs ?? []).map((ref) => resolveName(ref, sectionName, scenario[sectionName])).filter((n): n is string => n !== undefined));

/** Targets an action contract authors (docs/rules.md, compilation): effect targets, then precondition supports. */
export const authoredTargets = (contract: ActionContractDocument, scenario: ScenarioDocument): string[] => {
  const refs = [
    ...(contract.effects ?? []).flatMap((effect) => effect.target_refs ?? []),
    ...(contract.preconditions ?? []).flatMap((precondition) => precondition.support_refs ?? []),
  ];
  return unique(refs.map((ref) => resolveTargetRef(ref, scenario)).filter((a): a is string => a !== undefined));
};

/** Action contracts with a shared-time binding: temporal-constraint subjects or own temporal contracts. */
export const sharedTimeBoundNames = (scenario: ScenarioDocument): Set<string> => {
  const bound = new Set<string>();
  for (const constraint of Object.values(scenario.temporal_constraints ?? {})) {
    for (const ref of constraint.subject_refs ?? []) {
      const name = resolveName(ref, 'action_contracts', scenario.action_contracts);
      if (name !== undefined) bound.add(name);
    }
  }
  for (const [name, contract] of Object.entries(scenario.action_contracts ?? {})) {
    if ((contract.temporal_contracts ?? []).length > 0) bound.add(name);
  }
  return bound;
};

const compileCadence = (policy: AutonomousExecutionDocument, scenario: ScenarioDocument): CompiledCadence | undefined => {
  for (const ref of policy.temporal_constraint_refs ?? []) {
    const name = resolveName(ref, 'temporal_constraints', scenario.temporal_constraints);
    const constraint = name === undefined ? undefined : scenario.temporal_constraints?.[name];
    if (name !== undefined && constraint?.constraint_kind === 'cadence' && constraint.cadence_ticks !== undefined) {
      return {
        constraintAddress: temporalConstraintAddress(name),
        cadenceTicks: constraint.cadence_ticks,
        startTick: constraint.start?.tick ?? 0,
      };
    }
  }
  return undefined;
};

const compilePolicy = (specName: string, scenario: ScenarioDocument): CompiledPolicy | undefined => {
  const spec = scenario.behavior_specifications?.[specName];
  const policy = spec?.autonomous_execution;
  if (spec === undefined || policy === undefined) return undefined;
  const clock = policy.clock_ref === undefined ? undefined : resolveName(policy.clock_ref, 'clocks', scenario.clocks);
  const boundary = resolveName(policy.observation_boundary_ref, 'observation_boundaries', scenario.observation_boundaries);
  const common = {
    address: autonomousPolicyAddress(specName),
    specificationAddress: behaviorSpecificationAddress(specName),
    participantAddresses: namedParticipants(spec, scenario).map(participantAddress),
    implementationRef: policy.participant_implementation_ref,
    actionOrder: (policy.action_order ?? [])
      .map((ref) => resolveName(ref, 'action_contracts', scenario.action_contracts))
      .filter((n): n is string => n !== undefined)
      .map(actionContractAddress),
    observationBoundaryAddress: observationBoundaryAddress(boundary ?? policy.observation_boundary_ref),
    maxActionAttempts: policy.max_action_attempts,
    maxInFlight: policy.max_in_flight ?? 1,
    failurePolicy: policy.failure_policy ?? 'stop',
    evaluationAuthority: { mode: policy.evaluation_authority?.mode ?? 'none' },
  } as const;
  const clockAddr = clock === undefined ? undefined : clockAddress(clock);
  const cadence = compileCadence(policy, scenario);
  const profile = policy.profile ?? PROFILE_V1;
  if (profile === PROFILE_V1) {
    // Validation guarantees both for a valid v1 policy.
    if (clockAddr === undefined || cadence === undefined) return undefined;
    return { ...common, profile, clockAddress: clockAddr, cadence };
  }
  return { ...common, profile, clockAddress: clockAddr, cadence };
};

/**
 * Compiles a validated scenario document. Call it only when validation reported no errors; refs that
 * do not resolve are skipped, never guessed.
 */
export const compileScenario = (scenario: ScenarioDocument): CompiledScenario => {
  const sharedTime = sharedTimeBoundNames(scenario);
  const contracts = new Map<string, CompiledActionContract>();
  for (const [name, contract] of Object.entries(scenario.action_contracts ?? {})) {
    contracts.set(name, {
      address: actionContractAddress(name),
      targetAddresses: authoredTargets(contract, scenario),
      sharedTimeBound: sharedTime.has(name),
    });
  }

  const policies: CompiledPolicy[] = [];
  const toolAffordances: CompiledToolAffordance[] = [];
  const affordanceBindings: AffordanceBinding[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const policy = compilePolicy(specName, scenario);
    if (policy !== undefined) policies.push(policy);
    for (const [name, affordance] of Object.entries(spec.tool_affordances ?? {})) {
      const address = toolAffordanceAddress(specName, name);
      const participants = affordanceParticipants(affordance, spec, scenario).map(participantAddress);
      const actions = resolveAll(affordance.action_contract_refs, 'action_contracts', scenario);
      const boundaries = resolveAll(affordance.observation_boundary_refs, 'observation_boundaries', scenario).map(
        observationBoundaryAddress,
      );
      toolAffordances.push({
        address,
        specificationAddress: behaviorSpecificationAddress(specName),
        toolRef: affordance.tool_ref,
        scoped: affordance.participant_refs !== undefined,
        participantAddresses: participants,
        actionContractAddresses: actions.map(actionContractAddress),
        observationBoundaryAddresses: boundaries,
      });
      for (const action of actions) {
        const targets = contracts.get(action)?.targetAddresses ?? [];
        for (const participant of participants) {
          affordanceBindings.push({
            tool_affordance_address: address,
            action_contract_address: actionContractAddress(action),
            participant_address: participant,
            observation_boundary_addresses: boundaries,
            target_addresses: targets,
          });
        }
      }
    }
  }

  return {
    name: scenario.name,
    participants: Object.entries(scenario.agents ?? {}).map(([agent, definition]) => ({
      address: participantAddress(agent),
      agent,
      entity: resolveName(definition.entity, 'entities', scenario.entities) ?? definition.entity,
    })),
    actionContracts: [...contracts.values()],
    observationBoundaries: Object.entries(scenario.observation_boundaries ?? {}).map(([name, boundary]) => ({
      address: observationBoundaryAddress(name),
      evidenceRefs: boundary.evidence_refs ?? [],
    })),
    policies,
    toolAffordances,
    affordanceBindings,
    sharedTimeBoundActions: [...sharedTime].map(actionContractAddress),
  };
};
