import { BehaviorSpecificationDocument, ScenarioDocument } from './document';
import { resolveName } from './references';

/** Agents a spec names in `participant_refs`, resolved, in authored order. */
export const namedParticipants = (spec: BehaviorSpecificationDocument, scenario: ScenarioDocument): string[] => {
  const names: string[] = [];
  for (const ref of spec.participant_refs ?? []) {
    const name = resolveName(ref, 'agents', scenario.agents);
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
};

/**
 * The participants of a behavior specification (docs/rules.md, compilation): its `participant_refs`, then the
 * agents whose entity role is one of its `participant_role_refs`, without repeats.
 */
export const specificationParticipants = (
  spec: BehaviorSpecificationDocument,
  scenario: ScenarioDocument,
): string[] => {
  const names = namedParticipants(spec, scenario);
  const roles = spec.participant_role_refs ?? [];
  if (roles.length === 0) return names;
  for (const [agent, definition] of Object.entries(scenario.agents ?? {})) {
    const entity = resolveName(definition.entity, 'entities', scenario.entities);
    const role = entity === undefined ? undefined : scenario.entities?.[entity]?.role;
    if (role !== undefined && roles.includes(role) && !names.includes(agent)) names.push(agent);
  }
  return names;
};
