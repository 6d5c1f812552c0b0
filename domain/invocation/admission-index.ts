import type { AdmissionContext, AffordanceBinding, ExecutionOffer } from './admission-context';

/**
 * The admission context indexed once, when the invocation opens, so each admission decision is a
 * handful of Map and Set lookups.
 */
export interface IndexedBinding {
  readonly binding: AffordanceBinding;
  readonly boundaries: ReadonlySet<string>;
  readonly targets: ReadonlySet<string>;
}

export interface IndexedOffer {
  readonly offer: ExecutionOffer;
  readonly targets: ReadonlySet<string>;
}

export interface AdmissionIndex {
  /** Keyed by bindingKey(affordance, action, participant). */
  readonly bindings: ReadonlyMap<string, readonly IndexedBinding[]>;
  readonly sharedTimeBoundActions: ReadonlySet<string>;
  /** Keyed by offerKey(action, implementation). */
  readonly offers: ReadonlyMap<string, readonly IndexedOffer[]>;
  readonly offersById: ReadonlyMap<string, ExecutionOffer>;
  readonly boundaryEvidence: ReadonlyMap<string, ReadonlySet<string>>;
  readonly withheldRefs: ReadonlySet<string>;
}

export const bindingKey = (affordance: string, action: string, participant: string): string =>
  `${affordance}|${action}|${participant}`;

export const offerKey = (action: string, implementation: string): string => `${action}|${implementation}`;

const push = <V>(map: Map<string, V[]>, key: string, value: V): void => {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
};

export const indexAdmissionContext = (context: AdmissionContext): AdmissionIndex => {
  const bindings = new Map<string, IndexedBinding[]>();
  for (const binding of context.affordance_bindings) {
    push(bindings, bindingKey(binding.tool_affordance_address, binding.action_contract_address, binding.participant_address), {
      binding,
      boundaries: new Set(binding.observation_boundary_addresses),
      targets: new Set(binding.target_addresses),
    });
  }
  const offers = new Map<string, IndexedOffer[]>();
  const offersById = new Map<string, ExecutionOffer>();
  for (const offer of context.offers) {
    push(offers, offerKey(offer.action_contract_address, offer.participant_implementation_ref), {
      offer,
      targets: new Set(offer.target_addresses),
    });
    offersById.set(offer.binding_id, offer);
  }
  const boundaryEvidence = new Map<string, ReadonlySet<string>>();
  for (const boundary of Object.keys(context.boundary_evidence_refs)) {
    boundaryEvidence.set(boundary, new Set(context.boundary_evidence_refs[boundary]));
  }
  return {
    bindings,
    sharedTimeBoundActions: new Set(context.shared_time_bound_actions),
    offers,
    offersById,
    boundaryEvidence,
    withheldRefs: new Set(context.withheld_refs),
  };
};
