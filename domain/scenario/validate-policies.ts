import { autonomousPolicyAddress } from '../addresses';
import { isBlank } from './decoding';
import { Diagnostic, DiagnosticCode, error, warning } from './diagnostics';
import {
  AutonomousExecutionDocument,
  BehaviorSpecificationDocument,
  PROFILE_V1,
  PROFILE_V3,
  ScenarioDocument,
  TemporalConstraintDocument,
  isActivityPolicy,
} from './document';
import { specificationParticipants } from './participants';
import { AUTONOMOUS_REQUIRED_FEATURES } from './raes-vocabulary';
import { declares, resolveName } from './references';
import { checkResourceBudget } from './validate-resource-budgets';

/**
 * The autonomous-execution rules of RAES 3.3 (its participant-behavior analysis and policy models) and
 * of docs/rules.md, authoring, for every policy: who it runs, what it may do, on which clock and progression,
 * at which cadence, and with which evaluation authority.
 */

interface PolicyContext {
  readonly specName: string;
  readonly spec: BehaviorSpecificationDocument;
  readonly policy: AutonomousExecutionDocument;
  readonly scenario: ScenarioDocument;
  readonly participants: ReadonlyArray<string>;
  readonly at: string;
  /** How the scenario wrote its numbers, by path (loadScenarioSource): a resource budget's amounts are read exactly from it. */
  readonly authoredNumbers: ReadonlyMap<string, string>;
  readonly report: (code: DiagnosticCode, message: string, at?: string) => void;
}

const checkDeclaration = ({ spec, at, specName, report }: PolicyContext): void => {
  if ((spec.participant_refs ?? []).length === 0) {
    report('participant.autonomous-execution-incomplete', `the policy has no participants: list the agents it runs in behavior_specifications.${specName}.participant_refs.`);
  }
  const declared = new Set(spec.backend_feature_support_refs ?? []);
  for (const feature of AUTONOMOUS_REQUIRED_FEATURES.filter((f) => !declared.has(f))) {
    report(
      'participant.autonomous-execution-incomplete',
      `an autonomous policy needs backend feature "${feature}": add it to behavior_specifications.${specName}.backend_feature_support_refs (${at} runs on it).`,
    );
  }
};

const policyActions = (policy: AutonomousExecutionDocument): string[] =>
  isActivityPolicy(policy) ? Object.values(policy.action_candidates).map((c) => c.action_ref) : policy.action_order;

const checkScope = ({ spec, policy, scenario, participants, at, specName, report }: PolicyContext): void => {
  const specActions = spec.action_contract_refs ?? [];
  const where = isActivityPolicy(policy) ? `${at}.action_candidates` : `${at}.action_order`;
  for (const action of policyActions(policy)) {
    if (!specActions.includes(action)) {
      report(
        'participant.autonomous-execution-outside-specification',
        `${where} names "${action}", which is not in behavior_specifications.${specName}.action_contract_refs: add it there or remove it from the policy.`,
      );
    }
    for (const participant of participants) {
      if (!(scenario.agents?.[participant]?.actions ?? []).includes(action)) {
        report(
          'participant.autonomous-execution-outside-participant',
          `participant "${participant}" cannot perform "${action}" (not in agents.${participant}.actions): add it to the agent's actions or remove it from ${where}.`,
        );
      }
    }
  }
  const boundary = policy.observation_boundary_ref;
  if (!(spec.observation_boundary_refs ?? []).includes(boundary)) {
    report(
      'participant.autonomous-execution-outside-specification',
      `${at}.observation_boundary_ref names "${boundary}", which is not in behavior_specifications.${specName}.observation_boundary_refs: add it there or use one of the specification's boundaries.`,
    );
  }
  for (const participant of participants) {
    if (!(scenario.agents?.[participant]?.observation_boundaries ?? []).includes(boundary)) {
      report(
        'participant.autonomous-execution-outside-participant',
        `participant "${participant}" does not observe through boundary "${boundary}" (not in agents.${participant}.observation_boundaries): add it there or use another boundary.`,
      );
    }
  }
};

/** The constraints a policy runs on, resolved; reports refs that name none. */
const policyConstraints = (context: PolicyContext): Array<[string, TemporalConstraintDocument]> => {
  const { policy, scenario, at, report } = context;
  const refs = isActivityPolicy(policy) ? [...policy.work_window_refs, ...(policy.pause_window_refs ?? [])] : policy.temporal_constraint_refs;
  const found: Array<[string, TemporalConstraintDocument]> = [];
  for (const ref of refs) {
    const name = resolveName(ref, 'temporal_constraints', scenario.temporal_constraints);
    const constraint = name === undefined ? undefined : scenario.temporal_constraints?.[name];
    if (name === undefined || constraint === undefined) {
      report('scenario.reference-unresolved', `${at} names temporal constraint "${ref}", which is not declared under temporal_constraints: declare it or fix the name.`);
      continue;
    }
    if (policy.clock_ref !== undefined && constraint.clock_ref !== policy.clock_ref) {
      report(
        'participant.autonomous-execution-cadence-invalid',
        `temporal constraint "${name}" runs on clock "${constraint.clock_ref}" but the policy runs on "${policy.clock_ref}": set temporal_constraints.${name}.clock_ref to the policy's clock.`,
      );
    }
    found.push([name, constraint]);
  }
  return found;
};

const checkActivityWindows = (context: PolicyContext, constraints: ReadonlyArray<[string, TemporalConstraintDocument]>): void => {
  const { specName, participants, report } = context;
  for (const [name, constraint] of constraints) {
    if (constraint.constraint_kind !== 'window') {
      report('participant.autonomous-execution-activity-invalid', `work and pause windows must be window constraints; "${name}" is a ${constraint.constraint_kind}: use a window constraint.`);
      continue;
    }
    const subjects = new Set(constraint.subject_refs);
    if (!subjects.has(specName) && !participants.every((p) => subjects.has(p))) {
      report(
        'participant.autonomous-execution-activity-invalid',
        `window "${name}" must name behavior specification "${specName}" or every participant of the policy in its subject_refs: add them to temporal_constraints.${name}.subject_refs.`,
      );
    }
  }
};

/** The one cadence of a v1 policy, or undefined after reporting why there is not exactly one. */
const v1Cadence = (context: PolicyContext, constraints: ReadonlyArray<[string, TemporalConstraintDocument]>): [string, TemporalConstraintDocument] | undefined => {
  const cadences = constraints.filter(([, c]) => c.constraint_kind === 'cadence');
  if (cadences.length !== 1) {
    context.report(
      'participant.autonomous-execution-cadence-invalid',
      `a ${PROFILE_V1} policy needs exactly one cadence constraint in ${context.at}.temporal_constraint_refs, found ${cadences.length}${cadences.length > 0 ? ` (${cadences.map(([n]) => n).join(', ')})` : ''}: keep exactly one.`,
    );
    return undefined;
  }
  const [name, cadence] = cadences[0] as [string, TemporalConstraintDocument];
  if (cadence.cadence_ticks === undefined || cadence.cadence_ticks === null) {
    context.report('participant.autonomous-execution-cadence-invalid', `cadence constraint "${name}" has no cadence_ticks: set temporal_constraints.${name}.cadence_ticks to an integer >= 1.`);
  }
  if ((cadence.start?.tick ?? 0) < 0) {
    context.report('participant.autonomous-execution-cadence-invalid', `cadence constraint "${name}" starts before tick 0, where no cadence point is reachable: set temporal_constraints.${name}.start.tick to 0 or more.`);
  }
  return [name, cadence];
};

const declaredNames = (entries: Readonly<Record<string, unknown>> | undefined): string => {
  const known = Object.keys(entries ?? {});
  return known.length === 0 ? 'none declared' : `declared: ${known.join(', ')}`;
};

/** The selection strategy RAES fixes for a v1 policy. */
const V1_SELECTION_STRATEGY = 'ordered_cycle';

const checkTimeBindings = (context: PolicyContext): void => {
  const { policy, scenario, at, report } = context;
  if (!isActivityPolicy(policy)) {
    if (policy.clock_ref === undefined) report('participant.autonomous-execution-incomplete', `a ${PROFILE_V1} policy runs on a shared clock: set ${at}.clock_ref.`);
    if (policy.progression_policy_ref === undefined) {
      report(
        'participant.autonomous-execution-incomplete',
        `a ${PROFILE_V1} policy names how its clock advances: set ${at}.progression_policy_ref to one of time_progression_policies.`,
      );
    }
    if (policy.selection_strategy !== undefined && policy.selection_strategy !== V1_SELECTION_STRATEGY) {
      report(
        'participant.autonomous-execution-strategy-invalid',
        `${at}.selection_strategy is "${policy.selection_strategy}", but a ${PROFILE_V1} policy selects its actions as "${V1_SELECTION_STRATEGY}": set it to ${V1_SELECTION_STRATEGY} or leave it out.`,
      );
    }
  }
  const clockRef = policy.clock_ref;
  const clock = clockRef !== undefined && declares(scenario.clocks, clockRef) ? scenario.clocks?.[clockRef] : undefined;
  if (clockRef !== undefined && clock === undefined) {
    report('scenario.reference-unresolved', `${at}.clock_ref names clock "${clockRef}", which is not declared under clocks: declare it or fix the name.`);
  }
  const progressionName = policy.progression_policy_ref;
  const progression =
    progressionName !== undefined && declares(scenario.time_progression_policies, progressionName)
      ? scenario.time_progression_policies?.[progressionName]
      : undefined;
  if (progressionName !== undefined && progression === undefined) {
    report(
      'scenario.reference-unresolved',
      `${at}.progression_policy_ref names time progression policy "${progressionName}", which is not declared under time_progression_policies (${declaredNames(scenario.time_progression_policies)}): declare it or fix the name.`,
      `${at}.progression_policy_ref`,
    );
  } else if (progression !== undefined && clockRef !== undefined && progression.clock_ref !== clockRef) {
    report(
      'participant.autonomous-progression-clock-mismatch',
      `time progression policy "${progressionName}" advances clock "${progression.clock_ref}" but the policy runs on "${clockRef}": set time_progression_policies.${progressionName}.clock_ref to the policy's clock.`,
    );
  }

  const constraints = policyConstraints(context);
  let cadence: [string, TemporalConstraintDocument] | undefined;
  if (isActivityPolicy(policy)) checkActivityWindows(context, constraints);
  else cadence = v1Cadence(context, constraints);

  if (progression === undefined) return;
  const mode = progression.advancement_mode;
  if (mode === 'externally_paced') {
    report('participant.autonomous-execution-progression-invalid', `progression policy "${progressionName}" is externally paced, which no portable runtime can drive: use stepped, event_driven, real_time or dilated progression.`);
  }
  if ((mode === 'real_time' || mode === 'dilated') && clock !== undefined && clock.authority_kind !== 'runtime') {
    report('participant.autonomous-execution-progression-invalid', `wall-paced clock "${clockRef}" of an autonomous policy must have runtime authority: set clocks.${clockRef}.authority_kind to runtime.`);
  }
  if (mode !== 'stepped') return;
  const step = progression.step_ticks ?? undefined;
  if (isActivityPolicy(policy)) {
    if (step === undefined || policy.timing.minimum_ticks % step !== 0 || policy.timing.maximum_ticks % step !== 0) {
      report('participant.autonomous-execution-activity-invalid', `the activity timing bounds are not reachable by stepped progression "${progressionName}": make minimum_ticks and maximum_ticks multiples of its step_ticks.`);
    }
  } else if (cadence !== undefined) {
    const [name, constraint] = cadence;
    const ticks = constraint.cadence_ticks ?? undefined;
    const start = constraint.start?.tick ?? 0;
    if (step === undefined || ticks === undefined || start < 0 || start % step !== 0 || ticks % step !== 0) {
      report(
        'participant.autonomous-execution-cadence-invalid',
        `the points of cadence "${name}" are not reachable by stepped progression "${progressionName}": make its start tick and cadence_ticks multiples of the progression's step_ticks.`,
      );
    }
  }
};

const objectiveAgent = (objective: unknown): unknown =>
  typeof objective === 'object' && objective !== null ? (objective as { agent?: unknown }).agent : undefined;

const checkEvaluation = ({ spec, policy, scenario, participants, at, specName, report }: PolicyContext): void => {
  const authority = policy.evaluation_authority;
  const refs = {
    objective_refs: authority.objective_refs ?? [],
    proof_producer_refs: authority.proof_producer_refs ?? [],
    score_authority_refs: authority.score_authority_refs ?? [],
    receipt_authority_refs: authority.receipt_authority_refs ?? [],
  };
  for (const [field, values] of Object.entries(refs)) {
    if (values.some(isBlank) || new Set(values).size !== values.length) {
      report('participant.autonomous-execution-evaluation-invalid', `${at}.evaluation_authority.${field} must list distinct, non-blank refs.`);
    }
  }
  const anyRefs = Object.values(refs).some((values) => values.length > 0);
  if (authority.mode === 'none') {
    if (anyRefs) report('participant.autonomous-execution-evaluation-invalid', `evaluation authority "none" carries no authority refs: remove them or set ${at}.evaluation_authority.mode to declared.`);
    for (const participant of participants) {
      const entity = scenario.agents?.[participant]?.entity;
      const role = entity === undefined ? undefined : scenario.entities?.[entity]?.role;
      if (role !== 'green') {
        report(
          'participant.autonomous-execution-evaluation-invalid',
          `participant "${participant}" runs without evaluation authority, which RAES allows only to the green role (its entity's role is ${role ?? 'unset'}): give its entity role green, or declare the evaluation authority.`,
        );
      }
      if (Object.values((scenario.objectives ?? {}) as Record<string, unknown>).some((o) => objectiveAgent(o) === participant)) {
        report('participant.autonomous-execution-evaluation-invalid', `participant "${participant}" runs without evaluation authority and cannot be the agent of an objective: remove it from the objective or declare the evaluation authority.`);
      }
    }
    if ((spec.outcome_interpretation_rule_refs ?? []).length > 0 || (spec.authority_scope_refs ?? []).length > 0) {
      report(
        'participant.autonomous-execution-evaluation-invalid',
        `a policy without evaluation authority cannot widen it: remove behavior_specifications.${specName}.outcome_interpretation_rule_refs and authority_scope_refs, or declare the evaluation authority.`,
      );
    }
    return;
  }
  if (!anyRefs) report('participant.autonomous-execution-evaluation-invalid', `declared evaluation authority needs at least one authority ref: list the objectives in ${at}.evaluation_authority.objective_refs.`);
  for (const ref of refs.objective_refs) {
    if (resolveName(ref, 'objectives', (scenario.objectives ?? {}) as Record<string, unknown>) === undefined) {
      report('scenario.reference-unresolved', `${at}.evaluation_authority.objective_refs names objective "${ref}", which is not declared under objectives: declare it or fix the name.`);
    }
  }
  for (const field of ['proof_producer_refs', 'score_authority_refs', 'receipt_authority_refs'] as const) {
    for (const ref of refs[field]) {
      report('participant.autonomous-execution-evaluation-invalid', `${at}.evaluation_authority.${field} names "${ref}", but RAES SDL declares no such authority namespace: remove it.`);
    }
  }
};

/** RAES's model rules of an activity policy (v2, v3): a sound candidate graph and consistent counts; a v3 policy's resource budget. */
const checkActivityModel = ({ spec, policy, at, authoredNumbers, report }: PolicyContext): void => {
  if (!isActivityPolicy(policy)) return;
  const candidates = policy.action_candidates;
  const names = new Set(Object.keys(candidates));
  for (const [name, candidate] of Object.entries(candidates)) {
    for (const dependency of candidate.depends_on ?? []) {
      if (!names.has(dependency)) report('participant.autonomous-execution-activity-invalid', `candidate "${name}" depends on "${dependency}", which is not a candidate of ${at}.action_candidates: declare it or remove the dependency.`);
    }
    const classes = candidate.retryable_failure_classes ?? [];
    if (new Set(classes).size !== classes.length) report('participant.autonomous-execution-activity-invalid', `candidate "${name}" lists a retryable failure class twice: list each once.`);
    if ((classes.length > 0) !== ((candidate.max_retries ?? 0) > 0)) {
      report('participant.autonomous-execution-activity-invalid', `candidate "${name}" must declare retryable_failure_classes and max_retries together: set both or neither.`);
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const cyclic = (name: string): boolean => {
    if (state.get(name) === 'visiting') return true;
    if (state.get(name) === 'done') return false;
    state.set(name, 'visiting');
    const found = (candidates[name]?.depends_on ?? []).some((d) => names.has(d) && cyclic(d));
    state.set(name, 'done');
    return found;
  };
  if ([...names].some(cyclic)) report('participant.autonomous-execution-activity-invalid', `the dependencies of ${at}.action_candidates form a cycle: remove one.`);
  if (Object.values(candidates).every((c) => (c.depends_on ?? []).length > 0)) {
    report('participant.autonomous-execution-activity-invalid', `every candidate of ${at}.action_candidates depends on another, so none can start: leave at least one without depends_on.`);
  }
  if (policy.timing.maximum_ticks < policy.timing.minimum_ticks) report('participant.autonomous-execution-activity-invalid', `${at}.timing.maximum_ticks is below minimum_ticks: raise it.`);
  if (policy.max_occurrences > policy.max_action_attempts) report('participant.autonomous-execution-activity-invalid', `${at}.max_occurrences exceeds max_action_attempts: lower it.`);
  if ((policy.max_burst_size ?? 1) > policy.max_occurrences) report('participant.autonomous-execution-activity-invalid', `${at}.max_burst_size exceeds max_occurrences: lower it.`);
  if (policy.profile === PROFILE_V3) checkResourceBudget(policy.resource_budget, policy.max_in_flight ?? 1, spec.participant_refs ?? [], at, authoredNumbers, report);
};

/** Checks each autonomous policy, and that no participant is run by two policies. */
export const checkPolicies = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const owners = new Map<string, string>();
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const policy = spec.autonomous_execution;
    if (policy === undefined || policy === null) continue;
    const address = autonomousPolicyAddress(specName);
    const context: PolicyContext = {
      specName,
      spec,
      policy,
      scenario,
      participants: specificationParticipants(spec, scenario),
      at: `behavior_specifications.${specName}.autonomous_execution`,
      authoredNumbers,
      report: (code, message, at) => diagnostics.push(error(code, at ?? address, message)),
    };
    checkDeclaration(context);
    checkScope(context);
    checkTimeBindings(context);
    checkEvaluation(context);
    checkActivityModel(context);
    for (const participant of (spec.participant_refs ?? []).filter((p) => declares(scenario.agents, p))) {
      const owner = owners.get(participant);
      if (owner === undefined) owners.set(participant, specName);
      else if (owner !== specName) {
        // RAES refuses this; the engine runs such a participant under each policy (docs/decisions.md).
        diagnostics.push(
          warning(
            'participant.autonomous-execution-owner-conflict',
            address,
            `participant "${participant}" is already run by the policy of behavior specification "${owner}"; RAES refuses a participant under two policies, so this scenario is not valid RAES SDL: run each participant by one policy to keep it portable.`,
          ),
        );
      }
    }
  }
  return diagnostics;
};
