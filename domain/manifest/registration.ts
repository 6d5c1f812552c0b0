import { ToolActionLimits } from '../invocation/admission-context';
import { CompiledScenario } from '../scenario/compiled';
import { Diagnostic, error, hasErrors } from '../scenario/diagnostics';
import { checkManifest, claimLimits } from './claim';
import { ManifestDocument } from './document';

export const ATTACH_METHOD = 'attachInvocationToolActions';

/**
 * The outcome of registering a participant runtime. A port is attached only when the manifest
 * claims the composition and the claim has no defect; otherwise autonomous execution runs as before.
 */
export type Registration =
  | { readonly attachPort: true; readonly limits: ToolActionLimits; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly attachPort: false; readonly reason: 'unclaimed' }
  | { readonly attachPort: false; readonly reason: 'claim-refused'; readonly diagnostics: ReadonlyArray<Diagnostic> };

const hasAttachMethod = (runtime: unknown): boolean => {
  if ((typeof runtime !== 'object' && typeof runtime !== 'function') || runtime === null) return false;
  return typeof (runtime as Record<string, unknown>)[ATTACH_METHOD] === 'function';
};

/** Checks a runtime object against its manifest's claim (docs/rules.md, registration). */
export const registerRuntime = (runtime: unknown, manifest: ManifestDocument, compiled: CompiledScenario): Registration => {
  if (manifest.participant_runtime.invocation_tool_actions === undefined) return { attachPort: false, reason: 'unclaimed' };
  const diagnostics: Diagnostic[] = [];
  if (!hasAttachMethod(runtime)) {
    diagnostics.push(
      error(
        'manifest.claim-runtime-method-missing',
        'participant_runtime.invocation_tool_actions',
        `the manifest claims participant-invocation-tool-actions/v1 but the participant runtime has no ${ATTACH_METHOD}(port) method: implement it or remove the claim.`,
      ),
    );
  }
  diagnostics.push(...checkManifest(manifest, compiled));
  const limits = claimLimits(manifest);
  if (hasErrors(diagnostics) || limits === undefined) return { attachPort: false, reason: 'claim-refused', diagnostics };
  return { attachPort: true, limits, diagnostics };
};
