import { AffordanceBinding } from '../invocation/admission-context';
import { CompiledActionContract, CompiledObservationBoundary, CompiledPolicy, CompiledScenario } from './compiled';

/** Look-ups over a compiled scenario, by compiled address. */

export const policyAt = (compiled: CompiledScenario, address: string): CompiledPolicy | undefined =>
  compiled.policies.find((policy) => policy.address === address);

export const actionContractAt = (compiled: CompiledScenario, address: string): CompiledActionContract | undefined =>
  compiled.actionContracts.find((contract) => contract.address === address);

export const observationBoundaryAt = (compiled: CompiledScenario, address: string): CompiledObservationBoundary | undefined =>
  compiled.observationBoundaries.find((boundary) => boundary.address === address);

export const bindingsOfAffordance = (compiled: CompiledScenario, affordanceAddress: string): AffordanceBinding[] =>
  compiled.affordanceBindings.filter((binding) => binding.tool_affordance_address === affordanceAddress);
