import { Diagnostic, error } from './diagnostics';
import { ObservationBoundaryDocument, ScenarioDocument, ViewRuleDocument } from './document';

/**
 * The rules RAES 3.3's observation-boundary models check beyond each field's shape
 * (raes/participant_behavior.py: ParticipantViewRule, ParticipantObservationBoundary): what a view rule
 * needs by its class and disposition, and how a boundary's refs and view rules fit together.
 */

type Report = (address: string, message: string) => void;
type Disposition = ViewRuleDocument['disposition'];
type BoundaryClass = ViewRuleDocument['boundary_class'];

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

/** Every observation boundary's rules beyond its fields' shapes. */
export const checkObservationBoundaries = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const report: Report = (address, message) => diagnostics.push(error('scenario.observation-boundary-invalid', address, message));
  for (const [name, boundary] of Object.entries(scenario.observation_boundaries ?? {})) {
    const at = `observation_boundaries.${name}`;
    (boundary.view_rules ?? []).forEach((rule, i) => {
      const here = `${at}.view_rules.${i}`;
      const problem = viewRuleProblem(rule, here);
      if (problem !== undefined) report(here, `view rule for "${rule.information_ref}": ${problem}.`);
    });
    checkProjectionRefs(name, boundary, at, report);
    const twiceRefs = repeated((boundary.view_rules ?? []).map((rule) => rule.information_ref)).sort();
    if (twiceRefs.length > 0) {
      report(`${at}.view_rules`, `observation boundary "${name}" classifies ${listed(twiceRefs)} in more than one view rule: keep one view rule per information_ref.`);
    }
  }
  return diagnostics;
};
