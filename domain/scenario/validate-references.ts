import { isAddressSegment } from '../addresses';
import { Diagnostic, error } from './diagnostics';
import { ScenarioDocument } from './document';
import { resolveName } from './references';

/** Names that become address segments must be valid segments (docs/rules.md, addresses). */
export const checkNames = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const check = (name: string, path: string): void => {
    if (!isAddressSegment(name)) {
      diagnostics.push(
        error(
          'scenario.name-invalid',
          path,
          `"${name}" cannot be part of a compiled address: use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit.`,
        ),
      );
    }
  };
  const sections = {
    nodes: scenario.nodes,
    entities: scenario.entities,
    agents: scenario.agents,
    content: scenario.content,
    action_contracts: scenario.action_contracts,
    observation_boundaries: scenario.observation_boundaries,
    clocks: scenario.clocks,
    temporal_constraints: scenario.temporal_constraints,
    behavior_specifications: scenario.behavior_specifications,
  };
  for (const [sectionName, entries] of Object.entries(sections)) {
    for (const name of Object.keys(entries ?? {})) check(name, `${sectionName}.${name}`);
  }
  for (const [node, definition] of Object.entries(scenario.nodes ?? {})) {
    (definition.services ?? []).forEach((service, i) => check(service.name, `nodes.${node}.services.${i}.name`));
  }
  for (const [spec, definition] of Object.entries(scenario.behavior_specifications ?? {})) {
    for (const affordance of Object.keys(definition.tool_affordances ?? {})) {
      check(affordance, `behavior_specifications.${spec}.tool_affordances.${affordance}`);
    }
  }
  return diagnostics;
};

type SectionName =
  | 'agents'
  | 'entities'
  | 'action_contracts'
  | 'observation_boundaries'
  | 'clocks'
  | 'time_progression_policies'
  | 'temporal_constraints';

const WHAT: Record<SectionName, string> = {
  agents: 'agent',
  entities: 'entity',
  action_contracts: 'action contract',
  observation_boundaries: 'observation boundary',
  clocks: 'clock',
  time_progression_policies: 'time progression policy',
  temporal_constraints: 'temporal constraint',
};

/** Every ref to a named entry resolves (docs/rules.md, authoring). */
export const checkReferences = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const expect = (ref: string, sectionName: SectionName, path: string): void => {
    if (resolveName(ref, sectionName, scenario[sectionName]) !== undefined) return;
    const known = Object.keys(scenario[sectionName] ?? {});
    const hint = known.length === 0 ? `the scenario declares no ${sectionName}` : `declared: ${known.join(', ')}`;
    diagnostics.push(
      error(
        'scenario.reference-unresolved',
        path,
        `${path} names ${WHAT[sectionName]} "${ref}", which is not declared under ${sectionName} (${hint}): declare it or fix the name.`,
      ),
    );
  };
  const each = (refs: ReadonlyArray<string> | undefined, sectionName: SectionName, path: string): void =>
    (refs ?? []).forEach((ref, i) => expect(ref, sectionName, `${path}.${i}`));

  for (const [agent, definition] of Object.entries(scenario.agents ?? {})) {
    expect(definition.entity, 'entities', `agents.${agent}.entity`);
    each(definition.actions, 'action_contracts', `agents.${agent}.actions`);
    each(definition.observation_boundaries, 'observation_boundaries', `agents.${agent}.observation_boundaries`);
  }
  for (const [constraint, definition] of Object.entries(scenario.temporal_constraints ?? {})) {
    if (definition.clock_ref !== undefined) expect(definition.clock_ref, 'clocks', `temporal_constraints.${constraint}.clock_ref`);
  }
  for (const [spec, definition] of Object.entries(scenario.behavior_specifications ?? {})) {
    const at = `behavior_specifications.${spec}`;
    each(definition.participant_refs, 'agents', `${at}.participant_refs`);
    each(definition.action_contract_refs, 'action_contracts', `${at}.action_contract_refs`);
    each(definition.observation_boundary_refs, 'observation_boundaries', `${at}.observation_boundary_refs`);
    const policy = definition.autonomous_execution;
    if (policy !== undefined) {
      const p = `${at}.autonomous_execution`;
      if (policy.clock_ref !== undefined) expect(policy.clock_ref, 'clocks', `${p}.clock_ref`);
      if (policy.progression_policy_ref !== undefined) {
        expect(policy.progression_policy_ref, 'time_progression_policies', `${p}.progression_policy_ref`);
      }
      each(policy.temporal_constraint_refs, 'temporal_constraints', `${p}.temporal_constraint_refs`);
      each(policy.action_order, 'action_contracts', `${p}.action_order`);
      expect(policy.observation_boundary_ref, 'observation_boundaries', `${p}.observation_boundary_ref`);
    }
    for (const [affordance, a] of Object.entries(definition.tool_affordances ?? {})) {
      const p = `${at}.tool_affordances.${affordance}`;
      each(a.action_contract_refs, 'action_contracts', `${p}.action_contract_refs`);
      each(a.observation_boundary_refs, 'observation_boundaries', `${p}.observation_boundary_refs`);
      each(a.participant_refs, 'agents', `${p}.participant_refs`);
      if (a.tool_ref !== undefined && resolveName(a.tool_ref, 'content', scenario.content) === undefined) {
        const known = Object.keys(scenario.content ?? {});
        diagnostics.push(
          error(
            'participant.tool-affordance-tool-unresolved',
            `${p}.tool_ref`,
            `${p}.tool_ref "${a.tool_ref}" does not reference a declared scenario content identity (${known.length === 0 ? 'the scenario declares no content' : `declared: ${known.join(', ')}`}): declare the tool under content or fix the name.`,
          ),
        );
      }
    }
  }
  return diagnostics;
};
