import { toolAffordanceAddress } from '../addresses';
import { Diagnostic, error, warning } from './diagnostics';
import { BehaviorSpecificationDocument, ScenarioDocument, ToolAffordanceDocument } from './document';
import { specificationParticipants } from './participants';
import { affordanceClassificationRef, resolveName } from './references';

const resolvedNames = (
  refs: ReadonlyArray<string> | undefined,
  sectionName: 'agents' | 'action_contracts' | 'observation_boundaries',
  scenario: ScenarioDocument,
): string[] => {
  const names: string[] = [];
  for (const ref of refs ?? []) {
    const name = resolveName(ref, sectionName, scenario[sectionName]);
    if (name !== undefined) names.push(name);
  }
  return names;
};

/** The participants an affordance applies to: its scope if given, else its spec's participants. */
export const affordanceParticipants = (
  affordance: ToolAffordanceDocument,
  spec: BehaviorSpecificationDocument,
  scenario: ScenarioDocument,
): string[] =>
  affordance.participant_refs === undefined
    ? specificationParticipants(spec, scenario)
    : [...new Set(resolvedNames(affordance.participant_refs, 'agents', scenario))];

/** The affordance rules of docs/rules.md, authoring, for every affordance of every spec. */
export const checkAffordances = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const specActions = resolvedNames(spec.action_contract_refs, 'action_contracts', scenario);
    const specBoundaries = resolvedNames(spec.observation_boundary_refs, 'observation_boundaries', scenario);
    const specParticipants = specificationParticipants(spec, scenario);
    /** relation "participant|action|boundary" -> the affordance that declared it first */
    const relations = new Map<string, string>();

    for (const [name, affordance] of Object.entries(spec.tool_affordances ?? {})) {
      const address = toolAffordanceAddress(specName, name);
      const actions = resolvedNames(affordance.action_contract_refs, 'action_contracts', scenario);
      const boundaries = resolvedNames(affordance.observation_boundary_refs, 'observation_boundaries', scenario);

      if (spec.autonomous_execution === undefined) {
        diagnostics.push(
          warning(
            'participant.tool-affordance-without-policy',
            address,
            `behavior specification "${specName}" has no autonomous_execution, so no invocation can use tool affordance "${name}": declare the policy in the same specification or remove the affordance.`,
          ),
        );
      }

      for (const action of actions.filter((a) => !specActions.includes(a))) {
        diagnostics.push(
          error(
            'participant.tool-affordance-outside-specification',
            address,
            `action contract "${action}" is not in behavior_specifications.${specName}.action_contract_refs; an affordance cannot widen its specification: add it there or remove it from the affordance.`,
          ),
        );
      }
      for (const boundary of boundaries.filter((b) => !specBoundaries.includes(b))) {
        diagnostics.push(
          error(
            'participant.tool-affordance-outside-specification',
            address,
            `observation boundary "${boundary}" is not in behavior_specifications.${specName}.observation_boundary_refs; an affordance cannot widen its specification: add it there or remove it from the affordance.`,
          ),
        );
      }

      const scope = resolvedNames(affordance.participant_refs, 'agents', scenario);
      for (const participant of scope.filter((p) => !specParticipants.includes(p))) {
        diagnostics.push(
          error(
            'participant.tool-affordance-scope-outside-specification',
            address,
            `participant "${participant}" in the affordance's participant_refs is not a participant of behavior specification "${specName}": scope the affordance to participants of its specification.`,
          ),
        );
      }

      const participants = affordanceParticipants(affordance, spec, scenario).filter((p) => specParticipants.includes(p));
      for (const participant of participants) {
        const agent = scenario.agents?.[participant];
        const agentActions = resolvedNames(agent?.actions, 'action_contracts', scenario);
        const agentBoundaries = resolvedNames(agent?.observation_boundaries, 'observation_boundaries', scenario);
        for (const action of actions.filter((a) => !agentActions.includes(a))) {
          diagnostics.push(
            error(
              'participant.tool-affordance-outside-participant',
              address,
              `participant "${participant}" cannot perform action contract "${action}" (not in agents.${participant}.actions): add it to the agent's actions or scope the affordance to other participants.`,
            ),
          );
        }
        for (const boundary of boundaries.filter((b) => !agentBoundaries.includes(b))) {
          diagnostics.push(
            error(
              'participant.tool-affordance-outside-participant',
              address,
              `participant "${participant}" does not observe through boundary "${boundary}" (not in agents.${participant}.observation_boundaries): add it to the agent's boundaries or scope the affordance to other participants.`,
            ),
          );
        }
        for (const action of actions) {
          for (const boundary of boundaries) {
            const relation = `${participant}|${action}|${boundary}`;
            const first = relations.get(relation);
            if (first === undefined) {
              relations.set(relation, name);
            } else {
              diagnostics.push(
                error(
                  'participant.tool-affordance-relation-duplicate',
                  address,
                  first === name
                    ? `tool affordance "${name}" declares action "${action}" through boundary "${boundary}" twice: list each action and boundary once.`
                    : `tool affordances "${first}" and "${name}" both let participant "${participant}" use action "${action}" through boundary "${boundary}": keep the relation in one affordance or scope them to different participants.`,
                ),
              );
            }
          }
        }
      }

      const classificationRef = affordanceClassificationRef(specName, name);
      for (const boundary of [...new Set(boundaries)]) {
        const definition = scenario.observation_boundaries?.[boundary];
        const listed = [
          ...(definition?.observable_refs ?? []),
          ...(definition?.hidden_refs ?? []),
          ...(definition?.evidence_refs ?? []),
        ].includes(classificationRef);
        const ruled = (definition?.view_rules ?? []).some((rule) => rule.information_ref === classificationRef);
        if (!listed || !ruled) {
          const missing = [
            listed ? undefined : 'its observable_refs, hidden_refs or evidence_refs',
            ruled ? undefined : 'the information_ref of one of its view_rules',
          ].filter((m): m is string => m !== undefined);
          diagnostics.push(
            error(
              'participant.tool-affordance-view-unclassified',
              address,
              `observation boundary "${boundary}" does not classify "${classificationRef}": add it to ${missing.join(' and to ')}.`,
            ),
          );
        }
      }
    }
  }
  return diagnostics;
};
