import { isLeft } from 'fp-ts/Either';
import { checkManifest, loadManifestDocument, type ManifestDocument } from '../../domain/manifest';
import { hasErrors, loadScenario, type CompiledScenario, type Diagnostic } from '../../domain/scenario';
import { readText } from '../files/read-text';

/** A scenario and a manifest, loaded and checked together, as `run` and the operator commands need them. */
export type EngineInputs =
  | { readonly ok: true; readonly compiled: CompiledScenario; readonly manifest: ManifestDocument }
  | { readonly ok: false; readonly kind: 'unreadable'; readonly message: string }
  | { readonly ok: false; readonly kind: 'invalid'; readonly diagnostics: readonly Diagnostic[] };

export const loadEngineInputs = async (scenarioPath: string, manifestPath: string): Promise<EngineInputs> => {
  const scenarioText = await readText(scenarioPath, 'scenario file');
  if (!scenarioText.ok) return { ok: false, kind: 'unreadable', message: scenarioText.message };
  const manifestText = await readText(manifestPath, 'manifest file');
  if (!manifestText.ok) return { ok: false, kind: 'unreadable', message: manifestText.message };
  const scenario = loadScenario(scenarioText.text);
  const manifest = loadManifestDocument(manifestText.text);
  const diagnostics: Diagnostic[] = [...scenario.diagnostics];
  if (isLeft(manifest)) diagnostics.push(...manifest.left);
  else if (scenario.ok) diagnostics.push(...checkManifest(manifest.right, scenario.compiled));
  if (!scenario.ok || isLeft(manifest) || hasErrors(diagnostics)) {
    return { ok: false, kind: 'invalid', diagnostics: diagnostics.filter((d) => d.severity === 'error') };
  }
  return { ok: true, compiled: scenario.compiled, manifest: manifest.right };
};

export const formatDiagnostics = (diagnostics: readonly Diagnostic[]): string =>
  diagnostics.map((d) => `  ${d.code} at ${d.address}: ${d.message}\n`).join('');
