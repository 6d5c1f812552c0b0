import { isLeft } from 'fp-ts/Either';
import { CompiledScenario } from './compiled';
import { compileScenario } from './compile';
import { Diagnostic, hasErrors } from './diagnostics';
import { ScenarioDocument } from './document';
import { loadScenarioSource } from './load';
import { checkActionContracts } from './validate-action-contracts';
import { checkAffordances } from './validate-affordances';
import { checkNodes } from './validate-nodes';
import { checkObservationBoundaries } from './validate-observation-boundaries';
import { checkPolicies } from './validate-policies';
import { checkContent, checkNames, checkReferences, checkViewRules } from './validate-references';
import { checkSources } from './validate-sources';
import { checkSpecificationTerms, checkSpecifications } from './validate-specifications';
import { checkTimeModel } from './validate-time';

export * from './compiled';
export * from './diagnostics';
export { compileScenario } from './compile';
export { loadScenarioDocument } from './load';
export * from './queries';
export type { ScenarioDocument } from './document';

const dedupe = (diagnostics: ReadonlyArray<Diagnostic>): Diagnostic[] => {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}|${d.address}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * Every authoring rule of docs/rules.md, authoring, and of RAES for the sections the engine reads, all
 * reported together. `authoredNumbers` is how the scenario wrote its numbers (loadScenarioSource).
 */
export const validateScenario = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] =>
  dedupe([
    ...checkNames(scenario),
    ...checkReferences(scenario),
    ...checkNodes(scenario, authoredNumbers),
    ...checkSources(scenario, authoredNumbers),
    ...checkContent(scenario),
    ...checkViewRules(scenario),
    ...checkObservationBoundaries(scenario, authoredNumbers),
    ...checkActionContracts(scenario, authoredNumbers),
    ...checkTimeModel(scenario),
    ...checkSpecificationTerms(scenario),
    ...checkSpecifications(scenario, authoredNumbers),
    ...checkAffordances(scenario),
    ...checkPolicies(scenario, authoredNumbers),
  ]);

export type ScenarioResult =
  | { readonly ok: true; readonly compiled: CompiledScenario; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly ok: false; readonly diagnostics: ReadonlyArray<Diagnostic> };

/** Text to compiled scenario: loads, validates and, when nothing is wrong, compiles. */
export const loadScenario = (text: string): ScenarioResult => {
  const loaded = loadScenarioSource(text);
  if (isLeft(loaded)) return { ok: false, diagnostics: loaded.left };
  const { document, authoredNumbers } = loaded.right;
  const diagnostics = validateScenario(document, authoredNumbers);
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  return { ok: true, compiled: compileScenario(document), diagnostics };
};
