import { AdmissionContext, AffordanceBinding, ExecutionOffer } from '../invocation/admission-context';
import { CompiledScenario } from '../scenario/compiled';
import { observationBoundaryAt, policyAt } from '../scenario/queries';
import { claimLimits } from './claim';
import { ManifestDocument } from './document';
import { findImplementation } from './implementations';

/**
 * The admission context of one participant's invocations under one policy: the policy's affordance
 * bindings for that participant, the offers of the policy's implementation, the evidence their
 * boundaries declare and the implementation's withheld refs.
 *
 * Callers pass a scenario and manifest that validated and registered; anything else is a programming
 * error and throws.
 */
export const buildAdmissionContext = (
  compiled: CompiledScenario,
  manifest: ManifestDocument,
  policyAddress: string,
  participantAddress: string,
): AdmissionContext => {
  const policy = policyAt(compiled, policyAddress);
  if (policy === undefined) throw new Error(`no compiled policy ${policyAddress}`);
  if (!policy.participantAddresses.includes(participantAddress)) {
    throw new Error(`${participantAddress} is not a participant of policy ${policyAddress}`);
  }
  const limits = claimLimits(manifest);
  if (limits === undefined) throw new Error('the manifest has no valid invocation_tool_actions claim');

  const specAffordances = new Set(
    compiled.toolAffordances.filter((a) => a.specificationAddress === policy.specificationAddress).map((a) => a.address),
  );
  const bindings: AffordanceBinding[] = compiled.affordanceBindings.filter(
    (b) => b.participant_address === participantAddress && specAffordances.has(b.tool_affordance_address),
  );

  const offers: ExecutionOffer[] = [];
  for (const offer of manifest.participant_runtime.execution_bindings ?? []) {
    if (offer.participant_implementation_ref !== policy.implementationRef) continue;
    offers.push({
      binding_id: offer.binding_id,
      action_contract_address: offer.action_contract_address,
      target_addresses: offer.target_addresses,
      participant_implementation_ref: offer.participant_implementation_ref,
      constraint_refs: offer.constraint_refs,
      evidence_refs: offer.evidence_refs,
      max_action_attempts: offer.max_action_attempts,
      max_in_flight: offer.max_in_flight,
      timeout_seconds: offer.timeout_seconds,
      max_retries: offer.max_retries,
    });
  }

  const boundaryEvidenceRefs: Record<string, ReadonlyArray<string>> = {};
  for (const binding of bindings) {
    for (const boundaryAddress of binding.observation_boundary_addresses) {
      const boundary = observationBoundaryAt(compiled, boundaryAddress);
      boundaryEvidenceRefs[boundaryAddress] = boundary?.evidenceRefs ?? [];
    }
  }

  const implementation = findImplementation(manifest, policy.implementationRef);

  return {
    policy_profile: policy.profile,
    limits,
    affordance_bindings: bindings,
    shared_time_bound_actions: compiled.sharedTimeBoundActions,
    offers,
    boundary_evidence_refs: boundaryEvidenceRefs,
    withheld_refs: implementation?.exposure_policy.withheld_refs ?? [],
  };
};
