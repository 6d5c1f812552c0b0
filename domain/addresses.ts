/**
 * Compiled RAES addresses (docs/rules.md, addresses): lowercase dot-joined segments.
 * Every address the engine builds goes through these functions.
 */
export const ADDRESS_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const isAddressSegment = (segment: string): boolean => ADDRESS_SEGMENT.test(segment);

export const isCompiledAddress = (address: string): boolean =>
  address.split('.').length >= 2 && address.split('.').every(isAddressSegment);

export const participantAddress = (agent: string): string => `participant.behavior.${agent}`;
export const actionContractAddress = (contract: string): string => `participant.action-contract.${contract}`;
export const observationBoundaryAddress = (boundary: string): string =>
  `participant.observation-boundary.${boundary}`;
export const behaviorSpecificationAddress = (spec: string): string =>
  `participant.behavior-specification.${spec}`;
export const toolAffordanceAddress = (spec: string, affordance: string): string =>
  `participant.behavior-specification.${spec}.tool-affordance.${affordance}`;
/** The autonomous policy of a behavior specification; also its execution scope ref. */
export const autonomousPolicyAddress = (spec: string): string => `participant.autonomous-execution.${spec}`;
export const nodeAddress = (node: string): string => `provision.node.${node}`;
export const serviceAddress = (node: string, service: string): string =>
  `provision.node.${node}.service.${service}`;
export const contentAddress = (content: string): string => `provision.content.${content}`;
export const clockAddress = (clock: string): string => `time.clock.${clock}`;
export const temporalConstraintAddress = (constraint: string): string => `time.constraint.${constraint}`;

/** Outer (autonomous) action instance id, profile v1. */
export const outerActionInstanceId = (policy: string, participant: string, attempt: number): string =>
  `${policy}:${participant}:${attempt}`;

/** Observation point of an outer invocation on a shared logical clock. */
export const observationPoint = (clock: string, segment: number, tick: number): string =>
  `${clock}@segment=${segment},tick=${tick}`;

export const actorProvenance = (implementationName: string, version: string): string =>
  `participant-implementation:${implementationName}@${version}`;

/** What every tool action id admitted by the invocation starts with (the operations view finds them by it). */
export const toolActionInstanceIdPrefix = (invocationActionInstanceId: string): string => `${invocationActionInstanceId}:tool=`;

/** Admitted tool action ids are deterministic: `<invocation action instance id>:tool=<ordinal>`. */
export const toolActionInstanceId = (invocationActionInstanceId: string, admissionOrdinal: number): string =>
  `${toolActionInstanceIdPrefix(invocationActionInstanceId)}${admissionOrdinal}`;
