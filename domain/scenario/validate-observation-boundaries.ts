import { exactAuthoredInteger } from './authored-values';
import { Diagnostic, error } from './diagnostics';
import { ObservationBoundaryDocument, ScenarioDocument, ViewRuleDocument, ViewTransitionDocument } from './document';

/**
 * The rules RAES 3.3's observation-boundary models check beyond each field's shape
 * (raes/participant_behavior.py: ParticipantViewRule, ParticipantViewTransition,
 * ParticipantObservationBoundary): what a view rule and a view transition need by their class, kind and
 * disposition, and how a boundary's refs, view rules and view transitions fit together.
 */

type Report = (address: string, message: string) => void;
type Disposition = ViewRuleDocument['disposition'];
type BoundaryClass = ViewRuleDocument['boundary_class'];
type TransitionKind = ViewTransitionDocument['transition_kind'];

/** Information a participant sees only through an explicit disclosure rule (_SENSITIVE_BOUNDARY_CLASSES). */
const SENSITIVE_CLASSES: ReadonlySet<BoundaryClass> = new Set<BoundaryClass>([
  'hidden_truth',
  'private_answer_key',
  'canary',
  'holdout_variant',
  'adjudication_material',
]);

/** Dispositions that expose information to the participant (_EXPLICIT_EXPOSURE_DISPOSITIONS). */
const EXPOSING: ReadonlySet<Disposition> = new Set<Disposition>(['discovered', 'inferred', 'disclosed', 'deceptive']);

/** The dispositions each transition kind may lead to (_VIEW_TRANSITION_TARGETS). */
const TRANSITION_TARGETS: Readonly<Record<TransitionKind, ReadonlyArray<Disposition>>> = {
  discovery: ['discovered'],
  inference: ['inferred'],
  concealment: ['concealed'],
  disclosure: ['disclosed'],
  revocation: ['concealed', 'hidden'],
  deception: ['deceptive'],
};

const listed = (values: Iterable<string>): string => [...values].join(', ');

/** The first problem RAES finds in a view rule (ParticipantViewRule._validate_sem210_exposure_basis), with its fix. */
const viewRuleProblem = (rule: ViewRuleDocument, here: string): string | undefined => {
  const ruled = (rule.disclosure_rule ?? null) !== null;
  if (rule.disposition === 'disclosed' && !ruled) {
    return `a disclosed view rule needs a disclosure_rule: say in ${here}.disclosure_rule how the information is disclosed`;
  }
  if (SENSITIVE_CLASSES.has(rule.boundary_class)) {
    if (rule.disposition === 'observable') {
      return `${rule.boundary_class} information is never plainly observable: use disposition disclosed, with a disclosure_rule`;
    }
    if (EXPOSING.has(rule.disposition) && !ruled) {
      return `exposing ${rule.boundary_class} information (disposition ${rule.disposition}) needs a disclosure_rule: set ${here}.disclosure_rule`;
    }
  }
  if (rule.disposition === 'evidence_only' && (rule.evidence_refs ?? []).length === 0) {
    return `an evidence_only view rule needs evidence_refs: list the evidence that carries it in ${here}.evidence_refs`;
  }
  return undefined;
};

/** The first problem RAES finds in a view transition (ParticipantViewTransition._validate_transition_semantics), with its fix. */
const viewTransitionProblem = (transition: ViewTransitionDocument, here: string): string | undefined => {
  const targets = TRANSITION_TARGETS[transition.transition_kind];
  if (!targets.includes(transition.to_disposition)) {
    return `a ${transition.transition_kind} transition leads to ${targets.length === 1 ? '' : 'one of '}${[...targets].sort().join(', ')}, not ${transition.to_disposition}: change to_disposition or transition_kind`;
  }
  if (transition.from_disposition === transition.to_disposition) {
    return `the transition does not change the disposition (${transition.from_disposition} to ${transition.to_disposition}): correct from_disposition, or remove the transition`;
  }
  if (transition.transition_kind === 'disclosure' && (transition.disclosure_rule ?? null) === null) {
    return `a disclosure transition needs a disclosure_rule: set ${here}.disclosure_rule`;
  }
  if ((transition.evidence_refs ?? []).length === 0) {
    return `a view transition needs evidence_refs: list the evidence of the change in ${here}.evidence_refs`;
  }
  const instance = (transition.action_instance_id ?? null) !== null;
  if (transition.history_event_type === 'episode_close' && instance) {
    return 'an episode_close transition is not caused by an action instance: remove action_instance_id';
  }
  if (transition.history_event_type !== 'episode_close' && !instance) {
    return `a transition realized by history event ${transition.history_event_type} needs the action_instance_id that caused it: set ${here}.action_instance_id`;
  }
  return undefined;
};

/** Values listed more than once, in order of their first repeat. */
const repeated = <V>(values: ReadonlyArray<V>): V[] => {
  const seen = new Set<V>();
  const twice = new Set<V>();
  for (const value of values) (seen.has(value) ? twice : seen).add(value);
  return [...twice];
};

/** How a boundary's refs divide its information (_validate_projection_refs). */
const checkProjectionRefs = (name: string, boundary: ObservationBoundaryDocument, at: string, report: Report): void => {
  const observable = new Set(boundary.observable_refs ?? []);
  const hidden = new Set(boundary.hidden_refs ?? []);
  const evidence = new Set(boundary.evidence_refs ?? []);
  if (observable.size === 0 && evidence.size === 0) {
    report(at, `observation boundary "${name}" shows nothing: list what the participant observes in ${at}.observable_refs or the evidence it keeps in ${at}.evidence_refs.`);
  }
  const leaked = [...observable].filter((ref) => hidden.has(ref)).sort();
  if (leaked.length > 0) {
    report(
      `${at}.hidden_refs`,
      `observation boundary "${name}" both hides and shows ${listed(leaked)}: remove ${leaked.length === 1 ? 'it' : 'them'} from observable_refs, and disclose through a view rule with disposition disclosed if the participant may see ${leaked.length === 1 ? 'it' : 'them'}.`,
    );
  }
  const evidenceOnly = new Set((boundary.view_rules ?? []).filter((rule) => rule.disposition === 'evidence_only').map((rule) => rule.information_ref));
  const shown = [...observable].filter((ref) => evidenceOnly.has(ref)).sort();
  if (shown.length > 0) {
    report(
      `${at}.observable_refs`,
      `observation boundary "${name}" shows ${listed(shown)}, which its view rules make evidence_only: move ${shown.length === 1 ? 'it' : 'them'} from observable_refs to evidence_refs.`,
    );
  }
  const hiddenEvidence = [...evidence].filter((ref) => hidden.has(ref) && !evidenceOnly.has(ref)).sort();
  if (hiddenEvidence.length > 0) {
    report(
      `${at}.evidence_refs`,
      `observation boundary "${name}" keeps hidden ${listed(hiddenEvidence)} as evidence without an evidence_only view rule: classify ${hiddenEvidence.length === 1 ? 'it' : 'them'} with disposition evidence_only, or remove ${hiddenEvidence.length === 1 ? 'it' : 'them'} from evidence_refs.`,
    );
  }
};

/** A transition's effective_order exactly as RAES reads it (Python integers of any size), from how it was written. */
const exactOrder = (transition: ViewTransitionDocument, source: string | undefined): bigint =>
  exactAuthoredInteger(transition.effective_order, source);

const compareOrders = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * How a boundary's view transitions fit its view rules: distinct ids and orders, a view rule for each
 * transition's information, a disclosure rule for each exposure of sensitive information, and, taken in
 * effective_order from the view rules' dispositions, each transition starting where the last left off
 * (_transition_kinds_by_ref, _validate_transitions_have_view_rules,
 * _validate_sensitive_transition_disclosures, _validate_view_transition_sequence).
 */
const checkTransitions = (
  name: string,
  boundary: ObservationBoundaryDocument,
  at: string,
  authoredNumbers: ReadonlyMap<string, string>,
  othersHold: boolean,
  report: Report,
): void => {
  const rules = boundary.view_rules ?? [];
  const transitions = boundary.view_transitions ?? [];
  const here = `${at}.view_transitions`;
  const twiceIds = repeated(transitions.map((tr) => tr.transition_id)).sort();
  if (twiceIds.length > 0) report(here, `observation boundary "${name}" has transition ids ${listed(twiceIds)} more than once: give each view transition its own transition_id.`);
  const orders = transitions.map((tr, i) => exactOrder(tr, authoredNumbers.get(`${here}.${i}.effective_order`)));
  const twiceOrders = repeated(orders.map(String))
    .map(BigInt)
    .sort(compareOrders);
  if (twiceOrders.length > 0) {
    report(here, `observation boundary "${name}" has effective_order ${listed(twiceOrders.map(String))} on more than one view transition: give each transition its own place in the order.`);
  }
  // The last rule for a ref gives its initial disposition, as RAES builds it; repeats are refused apart.
  const initial = new Map<string, ViewRuleDocument>(rules.map((rule) => [rule.information_ref, rule]));
  const unruled = transitions.filter((tr) => !initial.has(tr.information_ref)).map((tr) => tr.transition_id).sort();
  if (unruled.length > 0) {
    report(
      here,
      `observation boundary "${name}" has view transitions ${listed(unruled)} for information no view rule classifies: add a view rule for each transition's information_ref.`,
    );
  }
  transitions.forEach((transition, i) => {
    const rule = initial.get(transition.information_ref);
    if (rule === undefined || !SENSITIVE_CLASSES.has(rule.boundary_class)) return;
    if (!EXPOSING.has(transition.to_disposition) || (transition.disclosure_rule ?? null) !== null) return;
    report(
      `${here}.${i}`,
      `view transition "${transition.transition_id}" exposes ${rule.boundary_class} information (${transition.to_disposition}) without a disclosure_rule: set ${here}.${i}.disclosure_rule.`,
    );
  });
  // The sequence is walked only once everything else of the boundary holds, as RAES walks it; its first
  // break is reported.
  if (!othersHold || twiceIds.length > 0 || twiceOrders.length > 0 || unruled.length > 0) return;
  const current = new Map<string, Disposition>([...initial].map(([ref, rule]) => [ref, rule.disposition]));
  const ordered = transitions.map((transition, i) => ({ transition, i, order: orders[i] ?? transition.effective_order })).sort((a, b) => compareOrders(a.order, b.order));
  for (const { transition, i } of ordered) {
    const now = current.get(transition.information_ref);
    if (now !== transition.from_disposition) {
      report(
        `${here}.${i}.from_disposition`,
        `view transition "${transition.transition_id}" starts from ${transition.from_disposition}, but ${transition.information_ref} is ${now} at that point (its view rule, then the transitions before it in effective_order): start from ${now}, or reorder the transitions.`,
      );
      return;
    }
    // RAES then asks that the transition change the disposition, which, once it starts where it should,
    // is the transition's own rule (from_disposition differs from to_disposition), reported above.
    current.set(transition.information_ref, transition.to_disposition);
  }
};

/**
 * Every observation boundary's rules beyond its fields' shapes. `authoredNumbers` (by path, how a number
 * was written where its value reads differently) gives a view transition's effective_order exactly.
 */
export const checkObservationBoundaries = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const report: Report = (address, message) => diagnostics.push(error('scenario.observation-boundary-invalid', address, message));
  for (const [name, boundary] of Object.entries(scenario.observation_boundaries ?? {})) {
    const at = `observation_boundaries.${name}`;
    const before = diagnostics.length;
    (boundary.view_rules ?? []).forEach((rule, i) => {
      const here = `${at}.view_rules.${i}`;
      const problem = viewRuleProblem(rule, here);
      if (problem !== undefined) report(here, `view rule for "${rule.information_ref}": ${problem}.`);
    });
    (boundary.view_transitions ?? []).forEach((transition, i) => {
      const here = `${at}.view_transitions.${i}`;
      const problem = viewTransitionProblem(transition, here);
      if (problem !== undefined) report(here, `view transition "${transition.transition_id}": ${problem}.`);
    });
    checkProjectionRefs(name, boundary, at, report);
    const twiceRefs = repeated((boundary.view_rules ?? []).map((rule) => rule.information_ref)).sort();
    if (twiceRefs.length > 0) {
      report(`${at}.view_rules`, `observation boundary "${name}" classifies ${listed(twiceRefs)} in more than one view rule: keep one view rule per information_ref.`);
    }
    checkTransitions(name, boundary, at, authoredNumbers, diagnostics.length === before, report);
  }
  return diagnostics;
};
