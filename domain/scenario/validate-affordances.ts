import { toolAffordanceAddress } from '../addresses';
import { Diagnostic, error, warning } from './diagnostics';
import { BehaviorSpecificationDocument, ScenarioDocument, ToolAffordanceDocument } from './document';
import { specificationParticipants } from './participants';
import { buildDeclarationIndex, DeclarationIndex } from './declarations';
import { affordanceClassificationRef, declares } from './references';

/** The refs that name an entry of the section (bare names, as RAES resolves them). */
const resolvedNames = (
  refs: ReadonlyArray<string> | undefined,
  sectionName: 'agents' | 'action_contracts' | 'observation_boundaries',
  scenario: ScenarioDocument,
): string[] => (refs ?? []).filter((ref) => declares(scenario[sectionName], ref));

/** A `tool_ref` names exactly one declared scenario content identity (RAES SEM-219). */
const toolRefProblem = (toolRef: string, index: DeclarationIndex, scenario: ScenarioDocument, at: string): string | undefined => {
  const found = index.resolve(toolRef);
  if (found.length === 0) {
    const known = Object.keys(scenario.content ?? {});
    const declared = known.length === 0 ? 'the scenario declares no content' : `declared: ${known.join(', ')}`;
    return `${at} "${toolRef}" does not reference a declared scenario content identity (${declared}): declare the tool under content or fix the name.`;
  }
  if (found.length > 1) {
    return `tool_ref "${toolRef}" is ambiguous: use one of ${found.map((d) => d.address).sort().join(', ')}.`;
  }
  const [declaration] = found;
  if (declaration?.kind !== 'content') {
    return `tool_ref "${toolRef}" names ${declaration?.kind} ${declaration?.address}, but must resolve through the scenario-content tools-and-artifacts reference model: name a content entry.`;
  }
  return undefined;
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
  const index = buildDeclarationIndex(scenario);
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications ?? {})) {
    const specActions = resolvedNames(spec.action_contract_refs, 'action_contracts', scenario);
    const specBoundaries = resolvedNames(spec.observation_boundary_refs, 'observation_boundaries', scenario);
    const specParticipants = specificationParticipants(spec, scenario);
    /** relation "participant|action|boundary" -> the affordance that declared it first */
    const relations = new Map<string, string>();
    /** RAES's relation: tool, actions and boundaries, in any order -> the affordance that declared it first */
    const signatures = new Map<string, string>();

    for (const [name, affordance] of Object.entries(spec.tool_affordances ?? {})) {
      const address = toolAffordanceAddress(specName, name);
      const actions = resolvedNames(affordance.action_contract_refs, 'action_contracts', scenario);
      const boundaries = resolvedNames(affordance.observation_boundary_refs, 'observation_boundaries', scenario);

      if (affordance.tool_ref !== undefined && affordance.tool_ref !== null) {
        const at = `behavior_specifications.${specName}.tool_affordances.${name}.tool_ref`;
        const problem = toolRefProblem(affordance.tool_ref, index, scenario, at);
        if (problem !== undefined) diagnostics.push(error('participant.tool-affordance-tool-unresolved', at, problem));
      }
      const signature = JSON.stringify([
        affordance.tool_ref ?? '',
        [...affordance.action_contract_refs].sort(),
        [...affordance.observation_boundary_refs].sort(),
      ]);
      const sameAs = signatures.get(signature);
      if (sameAs === undefined) signatures.set(signature, name);
      else {
        diagnostics.push(
          error(
            'participant.tool-affordance-relation-duplicate',
            address,
            `tool affordances "${sameAs}" and "${name}" declare the same tool, actions and boundaries; mapping order has no priority or fallback meaning: remove one.`,
          ),
        );
      }

      if (spec.autonomous_execution === undefined || spec.autonomous_execution === null) {
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
