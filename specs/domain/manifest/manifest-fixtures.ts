import { readFileSync } from 'node:fs';
import { isLeft } from 'fp-ts/Either';
import { ManifestDocument, loadManifestDocument } from '../../../domain/manifest';
import { CompiledScenario, loadScenario } from '../../../domain/scenario';
import { PORTAL_PROBE_SCENARIO, Yaml, portalProbeManifest } from '../scenario/scenario-fixtures';

export const compiledPortalProbe = (): CompiledScenario => {
  const result = loadScenario(readFileSync(PORTAL_PROBE_SCENARIO, 'utf8'));
  if (!result.ok) throw new Error('the portal-probe example must compile');
  return result.compiled;
};

/** The portal-probe example manifest, edited by `edit`, decoded. */
export const manifestWith = (edit: (doc: Yaml) => void): ManifestDocument => {
  const doc = portalProbeManifest();
  edit(doc);
  const decoded = loadManifestDocument(JSON.stringify(doc));
  if (isLeft(decoded)) throw new Error(`the edited manifest must decode: ${JSON.stringify(decoded.left)}`);
  return decoded.right;
};

/** A participant runtime that supports the claim. */
export const claimingRuntime = {
  admitAction: async (): Promise<void> => undefined,
  attachInvocationToolActions: (): void => undefined,
};
