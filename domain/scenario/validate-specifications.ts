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
