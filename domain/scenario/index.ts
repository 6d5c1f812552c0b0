import { isLeft } from 'fp-ts/Either';
import { CompiledScenario } from './compiled';
import { compileScenario } from './compile';
import { Diagnostic, hasErrors } from './diagnostics';
import { ScenarioDocument } from './document';
import { loadScenarioDocument } from './load';
import { checkAffordances } from './validate-affordances';
import { checkPolicies } from './validate-policies';
import { checkNames, checkReferences } from './validate-references';

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

/** Every authoring rule of docs/rules.md, authoring, all reported together. */
export const validateScenario = (scenario: ScenarioDocument): Diagnostic[] =>
  dedupe([...checkNames(scenario), ...checkReferences(scenario), ...checkAffordances(scenario), ...checkPolicies(scenario)]);

export type ScenarioResult =
  | { readonly ok: true; readonly compiled: CompiledScenario; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly ok: false; readonly diagnostics: ReadonlyArray<Diagnostic> };

/** Text to compiled scenario: loads, validates and, when nothing is wrong, compiles. */
export const loadScenario = (text: string): ScenarioResult => {
  const document = loadScenarioDocument(text);
  if (isLeft(document)) return { ok: false, diagnostics: document.left };
  const diagnostics = validateScenario(document.right);
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  return { ok: true, compiled: compileScenario(document.right), diagnostics };
};
