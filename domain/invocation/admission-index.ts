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

/**
 * Nested Maps rather than one Map over joined keys: looking up the request's own strings avoids
 * building and hashing a long joined key on every admission.
 */
type Keyed<V> = ReadonlyMap<string, V>;

export interface AdmissionIndex {
  /** affordance -> action contract -> participant -> bindings */
  readonly bindings: Keyed<Keyed<Keyed<readonly IndexedBinding[]>>>;
  readonly sharedTimeBoundActions: ReadonlySet<string>;
  /** action contract -> implementation -> offers */
  readonly offers: Keyed<Keyed<readonly IndexedOffer[]>>;
  readonly offersById: ReadonlyMap<string, ExecutionOffer>;
  readonly boundaryEvidence: ReadonlyMap<string, ReadonlySet<string>>;
  readonly withheldRefs: ReadonlySet<string>;
}

export const bindingsFor = (
  index: AdmissionIndex,
  affordance: string,
  action: string,
  participant: string,
): readonly IndexedBinding[] | undefined => index.bindings.get(affordance)?.get(action)?.get(participant);

export const offersFor = (index: AdmissionIndex, action: string, implementation: string): readonly IndexedOffer[] | undefined =>
  index.offers.get(action)?.get(implementation);

const child = <V>(map: Map<string, V>, key: string, make: () => V): V => {
  const existing = map.get(key);
  if (existing !== undefined) return existing;
  const created = make();
  map.set(key, created);
  return created;
};

const push = <V>(map: Map<string, V[]>, key: string, value: V): void => {
  child(map, key, (): V[] => []).push(value);
};

/**
 * One index per admission context object: the runtime manager hands every invocation of a
 * policy-participant the same context, so its open invocations share one read-only index instead of
 * holding a copy each (the index is most of an open invocation's heap).
 */
const indexes = new WeakMap<AdmissionContext, AdmissionIndex>();

export const indexAdmissionContext = (context: AdmissionContext): AdmissionIndex => {
  let index = indexes.get(context);
  if (index === undefined) {
    index = buildIndex(context);
    indexes.set(context, index);
  }
  return index;
};

/**
 * The index of an opened invocation's admission context, built when a decision first needs it: an
 * invocation only folded (the audit's, the history's) never builds one.
 */
export const admissionIndexOf = (state: { readonly admissionContext: AdmissionContext }): AdmissionIndex =>
  indexAdmissionContext(state.admissionContext);

const buildIndex = (context: AdmissionContext): AdmissionIndex => {
  const bindings = new Map<string, Map<string, Map<string, IndexedBinding[]>>>();
  for (const binding of context.affordance_bindings) {
    const byAction = child(bindings, binding.tool_affordance_address, () => new Map<string, Map<string, IndexedBinding[]>>());
    const byParticipant = child(byAction, binding.action_contract_address, () => new Map<string, IndexedBinding[]>());
    push(byParticipant, binding.participant_address, {
      binding,
      boundaries: new Set(binding.observation_boundary_addresses),
      targets: new Set(binding.target_addresses),
    });
  }
  const offers = new Map<string, Map<string, IndexedOffer[]>>();
  const offersById = new Map<string, ExecutionOffer>();
  for (const offer of context.offers) {
    const byImplementation = child(offers, offer.action_contract_address, () => new Map<string, IndexedOffer[]>());
    push(byImplementation, offer.participant_implementation_ref, {
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
