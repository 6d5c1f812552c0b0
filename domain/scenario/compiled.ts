import { AffordanceBinding, PolicyProfile } from '../invocation/admission-context';

/** The compiled scenario: canonical addresses only (docs/rules.md, addresses; also compilation). */

export interface CompiledParticipant {
  readonly address: string;
  readonly agent: string;
  readonly entity: string;
}

export interface CompiledActionContract {
  readonly address: string;
  /** Targets the contract authors: effect target refs, then precondition support refs, resolved. */
  readonly targetAddresses: ReadonlyArray<string>;
  readonly sharedTimeBound: boolean;
}

export interface CompiledObservationBoundary {
  readonly address: string;
  /** Evidence refs as authored (e.g. `content.participant-observation`). */
  readonly evidenceRefs: ReadonlyArray<string>;
}

export interface CompiledCadence {
  readonly constraintAddress: string;
  readonly cadenceTicks: number;
  readonly startTick: number;
}

export type FailurePolicy = 'stop' | 'continue';
export type EvaluationAuthorityMode = 'none' | 'declared';

/**
 * An autonomous policy. A v1 policy always has a clock and exactly one cadence; v2 and v3 are
 * recognised and carry what was authored.
 */
export type CompiledPolicy = {
  readonly address: string;
  readonly specificationAddress: string;
  readonly participantAddresses: ReadonlyArray<string>;
  readonly implementationRef: string;
  readonly actionOrder: ReadonlyArray<string>;
  readonly observationBoundaryAddress: string;
  readonly maxActionAttempts: number;
  readonly maxInFlight: number;
  readonly failurePolicy: FailurePolicy;
  readonly evaluationAuthority: { readonly mode: EvaluationAuthorityMode };
} & (
  | {
      readonly profile: 'participant-autonomous-execution/v1';
      readonly clockAddress: string;
      readonly cadence: CompiledCadence;
    }
  | {
      readonly profile: Exclude<PolicyProfile, 'participant-autonomous-execution/v1'>;
      readonly clockAddress: string | undefined;
      readonly cadence: CompiledCadence | undefined;
    }
);

export interface CompiledToolAffordance {
  readonly address: string;
  readonly specificationAddress: string;
  readonly toolRef: string | undefined;
  /** Whether `participant_refs` scoped the affordance; unscoped ones take the spec's participants. */
  readonly scoped: boolean;
  readonly participantAddresses: ReadonlyArray<string>;
  readonly actionContractAddresses: ReadonlyArray<string>;
  readonly observationBoundaryAddresses: ReadonlyArray<string>;
}

export interface CompiledScenario {
  readonly name: string;
  readonly participants: ReadonlyArray<CompiledParticipant>;
  readonly actionContracts: ReadonlyArray<CompiledActionContract>;
  readonly observationBoundaries: ReadonlyArray<CompiledObservationBoundary>;
  readonly policies: ReadonlyArray<CompiledPolicy>;
  readonly toolAffordances: ReadonlyArray<CompiledToolAffordance>;
  /** One per (affordance, action contract, participant). */
  readonly affordanceBindings: ReadonlyArray<AffordanceBinding>;
  readonly sharedTimeBoundActions: ReadonlyArray<string>;
}
