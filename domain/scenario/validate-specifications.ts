import { behaviorSpecificationAddress } from '../addresses';
import { Diagnostic, error } from './diagnostics';
import { exactAuthoredInteger, isIntegerSource } from './authored-values';
import { BehaviorSpecificationDocument, InjectDeliveryDocument, MixedControlDocument, MixedControlTransitionDocument, ScenarioDocument } from './document';
import {
  AI_OFFENSIVE_BEHAVIORS,
  BACKEND_FEATURES,
  BEHAVIOR_MODES,
  DEFENSIVE_BEHAVIORS,
  OFFENSIVE_BEHAVIORS,
  isGovernedTerm,
} from './raes-vocabulary';

const GOVERNED_LISTS = [
  ['backend_feature_support_refs', BACKEND_FEATURES, 'participant runtime features'],
  ['offensive_behavior_refs', OFFENSIVE_BEHAVIORS, 'participant offensive behavior activities'],
  ['ai_offensive_behavior_refs', AI_OFFENSIVE_BEHAVIORS, 'participant AI offensive behavior activities'],
  ['defensive_behavior_refs', DEFENSIVE_BEHAVIORS, 'participant defensive behavior activities'],
] as const;

/**
 * The terms of a behavior specification come from RAES's controlled vocabularies: each is a listed
 * term or a governed extension `x-<namespace>:<term>`.
 */
export const checkSpecificationTerms = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const address = behaviorSpecificationAddress(specName);
    const at = `behavior_specifications.${specName}`;
    const mode = spec.behavior_mode;
    if (mode !== undefined && mode !== null && !isGovernedTerm(BEHAVIOR_MODES, mode)) {
      diagnostics.push(
        error(
          'participant.behavior-specification-term-ungoverned',
          address,
          `${at}.behavior_mode "${mode}" is not a participant decision-surface mode: use one of ${BEHAVIOR_MODES.join(', ')}, or an extension x-<namespace>:<term>.`,
        ),
      );
    }
    for (const [field, terms, what] of GOVERNED_LISTS) {
      for (const value of spec[field] ?? []) {
        if (isGovernedTerm(terms, value)) continue;
        diagnostics.push(
          error(
            'participant.behavior-specification-term-ungoverned',
            address,
            `${at}.${field} names "${value}", which is not one of the ${what}: use one of ${terms.join(', ')}, or an extension x-<namespace>:<term>.`,
          ),
        );
      }
    }
  }
  return diagnostics;
};

type Report = (address: string, message: string) => void;

/**
 * A StrictInt field exactly as RAES reads it, from how it was written (`authoredNumbers`): a number
 * written as a float (3.0, 1e3) is refused, as pydantic's strict int refuses a float.
 */
const strictInteger = (decoded: bigint, path: string, authoredNumbers: ReadonlyMap<string, string>, diagnostics: Diagnostic[]): bigint => {
  const source = authoredNumbers.get(path);
  if (source !== undefined && !isIntegerSource(source)) {
    diagnostics.push(error('scenario.shape-invalid', path, `expected an integer at ${path}, got ${source}, which RAES reads as a float: write it as a whole number, without a fraction or exponent.`));
  }
  return exactAuthoredInteger(decoded, source);
};

/** Kinds of mixed-control transition that answer a proposal (_PROPOSAL_TARGETING_KINDS). */
const PROPOSAL_ANSWERS: ReadonlySet<string> = new Set(['approval', 'denial', 'external-direction']);

interface Transition {
  readonly id: string;
  readonly at: string;
  readonly doc: MixedControlTransitionDocument;
  readonly expected: bigint;
  readonly resulting: bigint;
  readonly effective: bigint;
  readonly from: bigint;
  readonly until: bigint;
  readonly proposalRevision: bigint | null;
}

/** One transition's own rules (MixedControlTransition._validate_transition_shape). */
const checkTransition = (t: Transition, report: Report): void => {
  const { doc, at, id } = t;
  if (doc.evidence_refs.length === 0) report(at, `mixed-control transition "${id}" needs evidence_refs: list the evidence of the decision in ${at}.evidence_refs.`);
  if (t.until < t.from) report(at, `mixed-control transition "${id}" is valid until order ${t.until}, before its valid_from_order ${t.from}: correct the interval.`);
  else if (t.effective < t.from || t.effective > t.until) {
    report(at, `mixed-control transition "${id}" takes effect at order ${t.effective}, outside its validity ${t.from} to ${t.until}: move effective_order into the interval or widen it.`);
  }
  if (t.resulting !== t.expected + 1n) {
    report(at, `mixed-control transition "${id}" moves the state revision from ${t.expected} to ${t.resulting}: a transition advances it by exactly one, so set resulting_state_revision to ${t.expected + 1n}.`);
  }
  const proposalRef = doc.proposal_ref ?? null;
  if ((proposalRef === null) !== (t.proposalRevision === null)) {
    report(at, `mixed-control transition "${id}" gives ${proposalRef === null ? 'proposal_revision without proposal_ref' : 'proposal_ref without proposal_revision'}: give both or neither.`);
  }
  const answers = proposalRef !== null || t.proposalRevision !== null;
  if (PROPOSAL_ANSWERS.has(doc.transition_kind) && !answers) {
    report(at, `${/^[aeiou]/.test(doc.transition_kind) ? 'an' : 'a'} ${doc.transition_kind} transition answers a proposal: set ${at}.proposal_ref and proposal_revision.`);
  }
  if (doc.transition_kind === 'proposal' && answers) report(at, `a proposal transition cannot answer another proposal: remove ${at}.proposal_ref and proposal_revision.`);
  if (doc.transition_kind === 'handoff' && (doc.completion_evidence_refs ?? []).length === 0) {
    report(at, `a handoff transition needs completion_evidence_refs: list the evidence that the handoff completed in ${at}.completion_evidence_refs.`);
  }
};

/** A specification's mixed_control (MixedControlParticipantOperation and its controller states and transitions). */
const checkMixedControl = (control: MixedControlDocument, at: string, authoredNumbers: ReadonlyMap<string, string>, diagnostics: Diagnostic[]): void => {
  const report: Report = (address, message) => diagnostics.push(error('scenario.behavior-specification-invalid', address, message));
  const strict = (value: bigint, path: string): bigint => strictInteger(value, path, authoredNumbers, diagnostics);
  const states = control.controller_states;
  for (const [id, state] of Object.entries(states)) {
    const here = `${at}.controller_states.${id}`;
    const from = strict(state.valid_from_order, `${here}.valid_from_order`);
    const until = strict(state.valid_until_order, `${here}.valid_until_order`);
    if (until < from) report(here, `controller state "${id}" is valid until order ${until}, before its valid_from_order ${from}: correct the interval.`);
    if (state.policy_revision !== control.policy_revision) {
      report(here, `controller state "${id}" is of policy revision "${state.policy_revision}", not the mixed_control's "${control.policy_revision}": set ${here}.policy_revision to "${control.policy_revision}".`);
    }
  }
  const transitions: Transition[] = Object.entries(control.transitions).map(([id, doc]) => {
    const here = `${at}.transitions.${id}`;
    const revision = doc.proposal_revision ?? null;
    return {
      id,
      at: here,
      doc,
      expected: strict(doc.expected_state_revision, `${here}.expected_state_revision`),
      resulting: strict(doc.resulting_state_revision, `${here}.resulting_state_revision`),
      effective: strict(doc.effective_order, `${here}.effective_order`),
      from: strict(doc.valid_from_order, `${here}.valid_from_order`),
      until: strict(doc.valid_until_order, `${here}.valid_until_order`),
      proposalRevision: revision === null ? null : strict(revision, `${here}.proposal_revision`),
    };
  });
  for (const transition of transitions) checkTransition(transition, report);

  if (Object.keys(states).length === 0) report(at, `mixed_control needs controller_states: declare at least the initial one in ${at}.controller_states.`);
  if (transitions.length === 0) report(at, `mixed_control needs transitions: declare them in ${at}.transitions.`);
  if (Object.keys(states).length > 0 && states[control.initial_state_ref] === undefined) {
    report(at, `initial_state_ref "${control.initial_state_ref}" is not a controller state: name one of ${Object.keys(states).join(', ')}.`);
  }
  const orders = new Map<bigint, string>();
  for (const { id, at: here, doc, effective } of transitions) {
    if (doc.policy_revision !== control.policy_revision) {
      report(here, `mixed-control transition "${id}" is of policy revision "${doc.policy_revision}", not the mixed_control's "${control.policy_revision}": set ${here}.policy_revision to "${control.policy_revision}".`);
    }
    for (const field of ['from_state_ref', 'to_state_ref'] as const) {
      if (states[doc[field]] === undefined) report(here, `mixed-control transition "${id}" names ${field} "${doc[field]}", which is not a controller state of ${at}.controller_states: declare it or fix the name.`);
    }
    const same = orders.get(effective);
    if (same !== undefined) report(here, `mixed-control transitions "${same}" and "${id}" share effective_order ${effective}: give each transition its own.`);
    else orders.set(effective, id);
  }
  // Revision continuity, in effective_order: each transition starts from a state revision already established.
  const established = new Set<string>([JSON.stringify([control.initial_state_ref, '0'])]);
  for (const t of [...transitions].sort((a, b) => (a.effective < b.effective ? -1 : a.effective > b.effective ? 1 : 0))) {
    if (!established.has(JSON.stringify([t.doc.from_state_ref, String(t.expected)]))) {
      report(t.at, `mixed-control transition "${t.id}" expects revision ${t.expected} of controller state "${t.doc.from_state_ref}", which no earlier transition (in effective_order) establishes: correct expected_state_revision or from_state_ref.`);
    }
    established.add(JSON.stringify([t.doc.to_state_ref, String(t.resulting)]));
  }
  const byId = new Map(transitions.map((t) => [t.id, t]));
  for (const t of transitions) {
    const proposalRef = t.doc.proposal_ref ?? null;
    if (proposalRef === null) continue;
    const proposal = byId.get(proposalRef);
    if (proposal === undefined || proposal.doc.transition_kind !== 'proposal') {
      report(t.at, `mixed-control transition "${t.id}" names proposal_ref "${proposalRef}", which is not a proposal transition: name a transition of kind proposal.`);
      continue;
    }
    if (t.proposalRevision !== null && t.proposalRevision !== proposal.resulting) {
      report(t.at, `mixed-control transition "${t.id}" answers revision ${t.proposalRevision} of proposal "${proposalRef}", which results in revision ${proposal.resulting}: set proposal_revision to ${proposal.resulting}.`);
    }
    if (t.effective <= proposal.effective) {
      report(t.at, `mixed-control transition "${t.id}" takes effect at order ${t.effective}, not after its proposal "${proposalRef}" (${proposal.effective}): give it a later effective_order.`);
    }
  }
};

/** The control agreement fields of an inject delivery, in RAES's order. */
const CONTROL_FIELDS = [
  'control_transition_ref',
  'controller_ref',
  'control_authority_scope_refs',
  'control_effective_order',
  'control_valid_from_order',
  'control_valid_until_order',
  'control_evidence_refs',
] as const;

/** One participant inject delivery (ParticipantInjectDelivery._validate_control_binding_shape). */
const checkInjectDelivery = (id: string, delivery: InjectDeliveryDocument, at: string, authoredNumbers: ReadonlyMap<string, string>, diagnostics: Diagnostic[]): void => {
  const report: Report = (address, message) => diagnostics.push(error('scenario.behavior-specification-invalid', address, message));
  const strict = (value: bigint | null | undefined, field: string): bigint | null =>
    value === undefined || value === null ? null : strictInteger(value, `${at}.${field}`, authoredNumbers, diagnostics);
  const effective = strict(delivery.control_effective_order, 'control_effective_order');
  const from = strict(delivery.control_valid_from_order, 'control_valid_from_order');
  const until = strict(delivery.control_valid_until_order, 'control_valid_until_order');
  const given = (field: (typeof CONTROL_FIELDS)[number]): boolean => {
    const value = delivery[field];
    return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  };
  if (delivery.delivery_kind === 'disclosure') {
    const present = CONTROL_FIELDS.filter(given);
    if (present.length > 0) report(at, `inject delivery "${id}" is a disclosure, which carries no control agreement: remove ${present.join(', ')}.`);
    return;
  }
  const missing = CONTROL_FIELDS.filter((field) => !given(field));
  if (missing.length > 0) {
    report(at, `inject delivery "${id}" is an ${delivery.delivery_kind}, which needs a complete control agreement: set ${missing.join(', ')}.`);
    return;
  }
  if (effective === null || from === null || until === null) return;
  if (until < from) report(at, `inject delivery "${id}" has control valid until order ${until}, before control_valid_from_order ${from}: correct the interval.`);
  else if (effective < from || effective > until) {
    report(at, `inject delivery "${id}" takes control effect at order ${effective}, outside its validity ${from} to ${until}: move control_effective_order into the interval or widen it.`);
  }
};

/** The surfaces a specification may aggregate, each as RAES tells whether it is given (_validate_aggregate_shape). */
const SURFACES: ReadonlyArray<(spec: BehaviorSpecificationDocument) => boolean> = [
  ...(
    [
      'action_contract_refs',
      'observation_boundary_refs',
      'outcome_interpretation_rule_refs',
      'authority_scope_refs',
      'ai_offensive_behavior_refs',
      'defensive_behavior_refs',
      'offensive_behavior_refs',
      'backend_feature_support_refs',
      'evidence_contract_refs',
    ] as const
  ).map((field) => (spec: BehaviorSpecificationDocument) => (spec[field] ?? []).length > 0),
  (spec) => (spec.behavior_mode ?? '') !== '',
  (spec) => (spec.realization_profile_ref ?? '') !== '',
  (spec) => (spec.autonomous_execution ?? null) !== null,
  (spec) => (spec.mixed_control ?? null) !== null,
  (spec) => Object.keys(spec.tool_affordances ?? {}).length > 0,
  (spec) => Object.keys(spec.participant_inject_deliveries ?? {}).length > 0,
];

/**
 * The rules RAES 3.3's models check of a behavior specification beyond each field's shape
 * (raes/participant_behavior_specification.py, raes/participant_inject_delivery.py): a specification
 * names participants and aggregates at least one behavior surface; one whose extension_policy is closed
 * has no extensions; its mixed_control pairs with behavior_mode mixed-control, binds one of its
 * participants at its semantic_version (as RAES's validator requires), and holds together, as do its
 * participant inject deliveries. `authoredNumbers` (by path, how a number was written) gives their strict
 * integers as RAES reads them.
 */
export const checkSpecifications = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const at = `behavior_specifications.${specName}`;
    const extensions = Object.keys(spec.extensions ?? {});
    if (spec.extension_policy === 'closed' && extensions.length > 0) {
      diagnostics.push(
        error(
          'scenario.behavior-specification-invalid',
          `${at}.extensions`,
          `${at} declares extension_policy closed, which allows no extensions, yet lists ${extensions.join(', ')}: remove ${at}.extensions, or set extension_policy to governed-extension.`,
        ),
      );
    }
    const invalid = (message: string): void => {
      diagnostics.push(error('scenario.behavior-specification-invalid', at, message));
    };
    if ((spec.participant_refs ?? []).length === 0 && (spec.participant_role_refs ?? []).length === 0) {
      invalid(`behavior specification "${specName}" names no participants: list agents in ${at}.participant_refs or roles in ${at}.participant_role_refs.`);
    }
    if (!SURFACES.some((given) => given(spec))) {
      invalid(`behavior specification "${specName}" declares no behavior surface: give it action contracts, boundaries, a behavior_mode, a policy, tool affordances or another surface it aggregates.`);
    }
    const control = spec.mixed_control ?? null;
    // RAES's validator (raes/validator/_mixed_control.py, _verify_mixed_control_pairing and its first checks).
    if (spec.behavior_mode === 'mixed-control' && control === null) invalid(`behavior_mode mixed-control needs a mixed_control: declare ${at}.mixed_control, or choose another mode.`);
    if (control !== null && spec.behavior_mode !== 'mixed-control') invalid(`a mixed_control needs behavior_mode mixed-control: set ${at}.behavior_mode to mixed-control, or remove ${at}.mixed_control.`);
    if (control !== null && !(spec.participant_refs ?? []).includes(control.participant_ref)) {
      invalid(`the mixed_control binds participant "${control.participant_ref}", which is not in ${at}.participant_refs: bind one of the specification's participants.`);
    }
    if (control !== null && control.policy_revision !== spec.semantic_version) {
      invalid(`the mixed_control is at policy revision "${control.policy_revision}", not the specification's semantic_version "${spec.semantic_version}": make them equal.`);
    }
    if (control !== null) checkMixedControl(control, `${at}.mixed_control`, authoredNumbers, diagnostics);
    for (const [id, delivery] of Object.entries(spec.participant_inject_deliveries ?? {})) {
      checkInjectDelivery(id, delivery, `${at}.participant_inject_deliveries.${id}`, authoredNumbers, diagnostics);
    }
  }
  return diagnostics;
};
