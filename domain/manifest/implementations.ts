import { actorProvenance } from '../addresses';
import { ManifestDocument, ParticipantImplementation } from './document';

export const findImplementation = (
  manifest: ManifestDocument,
  implementationRef: string,
): ParticipantImplementation | undefined =>
  (manifest.participant_runtime.participant_implementations ?? []).find((impl) => impl.implementation_ref === implementationRef);

/** Actor provenance of a selected implementation: `participant-implementation:<name>@<version>`. */
export const actorProvenanceOf = (implementation: ParticipantImplementation): string =>
  actorProvenance(implementation.name, implementation.version);
