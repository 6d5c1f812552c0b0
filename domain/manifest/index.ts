export * from './document';
export { loadManifestDocument } from './load';
export {
  checkClaim,
  checkManifest,
  checkOffers,
  claimLimits,
  toolActionContracts,
  SUPPORTED_SEMANTIC_VERSIONS,
  TOOL_ACTIONS_SEMANTIC_VERSION,
} from './claim';
export { registerRuntime, ATTACH_METHOD } from './registration';
export type { Registration } from './registration';
export { buildAdmissionContext } from './admission-context';
export { actorProvenanceOf, findImplementation } from './implementations';
