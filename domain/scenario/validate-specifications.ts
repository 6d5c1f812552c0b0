import { behaviorSpecificationAddress } from '../addresses';
import { Diagnostic, error } from './diagnostics';
import { ScenarioDocument } from './document';
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

/**
 * The rules RAES 3.3's ParticipantBehaviorSpecification checks beyond each field's shape
 * (raes/participant_behavior_specification.py, _validate_aggregate_shape): a specification whose
 * extension_policy is closed has no extensions.
 */
export const checkSpecifications = (scenario: ScenarioDocument): Diagnostic[] => {
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
  }
  return diagnostics;
};
