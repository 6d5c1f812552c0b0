import { ToolActionLimits } from '../invocation/admission-context';
import { CompiledPolicy, CompiledScenario } from '../scenario/compiled';
import { LIMITS } from '../scenario/decoding';
import { Diagnostic, error } from '../scenario/diagnostics';
import { ManifestDocument } from './document';

export const TOOL_ACTIONS_SEMANTIC_VERSION = 'participant-invocation-tool-actions/v1';
export const SUPPORTED_SEMANTIC_VERSIONS: ReadonlyArray<string> = [TOOL_ACTIONS_SEMANTIC_VERSION];

const CLAIM_PATH = 'participant_runtime.invocation_tool_actions';

const CLAIM_LIMIT_MAX = {
  max_tool_actions_per_invocation: LIMITS.maxToolActionsPerInvocation,
  max_concurrent_tool_actions_per_invocation: LIMITS.maxConcurrentToolActionsPerInvocation,
} as const;
type ClaimLimitField = keyof typeof CLAIM_LIMIT_MAX;

const isClaimLimit = (field: ClaimLimitField, value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= CLAIM_LIMIT_MAX[field];

/** The declared limits, or undefined when the manifest makes no claim or its limits are bad. */
export const claimLimits = (manifest: ManifestDocument): ToolActionLimits | undefined => {
  const claim = manifest.participant_runtime.invocation_tool_actions;
  if (claim === undefined) return undefined;
  const perInvocation = claim.max_tool_actions_per_invocation;
  const concurrent = claim.max_concurrent_tool_actions_per_invocation;
  if (!isClaimLimit('max_tool_actions_per_invocation', perInvocation) || !isClaimLimit('max_concurrent_tool_actions_per_invocation', concurrent)) {
    return undefined;
  }
  return { max_tool_actions_per_invocation: perInvocation, max_concurrent_tool_actions_per_invocation: concurrent };
};

/** Action contracts a policy's invocations can call as tools: those of its spec's affordances. */
export const toolActionContracts = (policy: CompiledPolicy, compiled: CompiledScenario): string[] => [
  ...new Set(
    compiled.toolAffordances
      .filter((affordance) => affordance.specificationAddress === policy.specificationAddress)
      .flatMap((affordance) => affordance.actionContractAddresses),
  ),
];

/** Offers must be unambiguous: one per (action contract, implementation), binding ids unique. */
export const checkOffers = (manifest: ManifestDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const byRelation = new Map<string, string>();
  const ids = new Set<string>();
  (manifest.participant_runtime.execution_bindings ?? []).forEach((offer, i) => {
    const path = `participant_runtime.execution_bindings.${i}`;
    if (ids.has(offer.binding_id)) {
      diagnostics.push(error('manifest.offer-duplicate', path, `binding_id "${offer.binding_id}" is used by an earlier offer: give each offer its own binding_id.`));
    }
    ids.add(offer.binding_id);
    const relation = `${offer.action_contract_address}|${offer.participant_implementation_ref}`;
    const first = byRelation.get(relation);
    if (first !== undefined) {
      diagnostics.push(
        error(
          'manifest.offer-duplicate',
          path,
          `offer "${offer.binding_id}" repeats the action contract ${offer.action_contract_address} and implementation "${offer.participant_implementation_ref}" of offer "${first}": declare one offer per tool action contract and implementation.`,
        ),
      );
    } else {
      byRelation.set(relation, offer.binding_id);
    }
  });
  return diagnostics;
};

/**
 * Every claim defect in docs/rules.md, registration, that the manifest alone shows (the runtime's method is
 * checked at registration). A manifest without the claim has no claim defects.
 */
export const checkClaim = (manifest: ManifestDocument, compiled: CompiledScenario): Diagnostic[] => {
  const runtime = manifest.participant_runtime;
  const claim = runtime.invocation_tool_actions;
  if (claim === undefined) return [];
  const diagnostics: Diagnostic[] = [];

  if (!runtime.supports_autonomous_execution || !runtime.supported_behavior_features.includes('autonomous_execution')) {
    diagnostics.push(
      error(
        'manifest.claim-autonomous-execution-missing',
        CLAIM_PATH,
        'the claim requires autonomous execution: set participant_runtime.supports_autonomous_execution to true and list "autonomous_execution" in supported_behavior_features.',
      ),
    );
  }

  const toolSupport = (runtime.feature_support ?? []).find((f) => f.feature === 'tool_affordances');
  if (toolSupport === undefined || toolSupport.support_level === 'unsupported') {
    diagnostics.push(
      error(
        'manifest.claim-tool-affordances-unsupported',
        CLAIM_PATH,
        `the claim requires positive tool_affordances support, found ${toolSupport === undefined ? 'none' : '"unsupported"'}: add {"feature": "tool_affordances", "support_level": "bounded"} (or disclosed_weak, exact) to participant_runtime.feature_support.`,
      ),
    );
  }

  const unknownVersions = claim.semantic_versions.filter((v) => !SUPPORTED_SEMANTIC_VERSIONS.includes(v));
  if (unknownVersions.length > 0 || claim.semantic_versions.length === 0) {
    diagnostics.push(
      error(
        'manifest.claim-semantic-version-unknown',
        `${CLAIM_PATH}.semantic_versions`,
        `${claim.semantic_versions.length === 0 ? 'no semantic version is claimed' : `unknown semantic version ${unknownVersions.map((v) => `"${v}"`).join(', ')}`}: claim ["${TOOL_ACTIONS_SEMANTIC_VERSION}"].`,
      ),
    );
  }

  for (const field of ['max_tool_actions_per_invocation', 'max_concurrent_tool_actions_per_invocation'] as const) {
    const value = claim[field];
    if (!isClaimLimit(field, value)) {
      diagnostics.push(
        error(
          'manifest.claim-limit-invalid',
          `${CLAIM_PATH}.${field}`,
          `${field} must be an integer from 1 to ${CLAIM_LIMIT_MAX[field]}, got ${JSON.stringify(value) ?? 'nothing'}: set a whole number of tool actions within that bound.`,
        ),
      );
    }
  }

  const offers = runtime.execution_bindings ?? [];
  const implementations = runtime.participant_implementations ?? [];
  for (const policy of compiled.policies) {
    const actions = toolActionContracts(policy, compiled);
    if (actions.length === 0) continue;
    if (!implementations.some((impl) => impl.implementation_ref === policy.implementationRef)) {
      diagnostics.push(
        error(
          'manifest.implementation-undeclared',
          policy.address,
          `the policy selects participant implementation "${policy.implementationRef}", which participant_runtime.participant_implementations does not declare: declare it with its name, version and exposure_policy.`,
        ),
      );
    }
    for (const action of actions) {
      const covered = offers.some(
        (offer) => offer.action_contract_address === action && offer.participant_implementation_ref === policy.implementationRef,
      );
      if (!covered) {
        diagnostics.push(
          error(
            'manifest.claim-offer-missing',
            action,
            `tool action contract ${action} has no execution-binding offer for implementation "${policy.implementationRef}" (policy ${policy.address}): add one to participant_runtime.execution_bindings.`,
          ),
        );
      }
    }
  }
  return diagnostics;
};

/** All manifest diagnostics against a compiled scenario. */
export const checkManifest = (manifest: ManifestDocument, compiled: CompiledScenario): Diagnostic[] => [
  ...checkOffers(manifest),
  ...checkClaim(manifest, compiled),
];
