import { isAddressSegment } from '../addresses';
import { buildDeclarationIndex } from './declarations';
import { Diagnostic, error } from './diagnostics';
import { SEARCH_INDEX_PROFILE, ScenarioDocument } from './document';
import { declares } from './references';

const SEGMENT_RULE = 'use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit';

/** Names that become address segments must be valid segments (docs/rules.md, addresses), as RAES requires of every key. */
export const checkNames = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const check = (name: string, path: string): void => {
    if (!isAddressSegment(name)) {
      diagnostics.push(error('scenario.name-invalid', path, `"${name}" cannot be part of a compiled address: ${SEGMENT_RULE}.`));
    }
  };
  check(scenario.name, 'name');
  const sections = {
    nodes: scenario.nodes,
    entities: scenario.entities,
    agents: scenario.agents,
    content: scenario.content,
    action_contracts: scenario.action_contracts,
    observation_boundaries: scenario.observation_boundaries,
    time_domains: scenario.time_domains,
    clocks: scenario.clocks,
    time_progression_policies: scenario.time_progression_policies,
    temporal_constraints: scenario.temporal_constraints,
    behavior_specifications: scenario.behavior_specifications,
  };
  for (const [sectionName, entries] of Object.entries(sections)) {
    for (const name of Object.keys(entries ?? {})) check(name, `${sectionName}.${name}`);
  }
  for (const [node, definition] of Object.entries(scenario.nodes ?? {})) {
    (definition.services ?? []).forEach((service, i) => {
      // RAES allows a service without a name; it is then not addressable.
      if (service.name !== undefined && service.name !== '') check(service.name, `nodes.${node}.services.${i}.name`);
    });
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
  | 'action_contracts'
  | 'observation_boundaries'
  | 'outcome_interpretation_rules'
  | 'time_domains'
  | 'clocks'
  | 'temporal_constraints';

const WHAT: Record<SectionName, string> = {
  agents: 'agent',
  action_contracts: 'action contract',
  observation_boundaries: 'observation boundary',
  outcome_interpretation_rules: 'outcome interpretation rule',
  time_domains: 'time domain',
  clocks: 'clock',
  temporal_constraints: 'temporal constraint',
};

/** The names of the agents' entities, nested entities included as `parent.child`. */
const entityNames = (entities: unknown, prefix = ''): string[] => {
  if (typeof entities !== 'object' || entities === null) return [];
  return Object.entries(entities as Record<string, { entities?: unknown } | null>).flatMap(([name, entity]) => {
    const full = prefix === '' ? name : `${prefix}.${name}`;
    return [full, ...entityNames(entity?.entities, full)];
  });
};

/**
 * Every ref of the sections the engine reads names a declaration, by bare name as RAES resolves them
 * (docs/rules.md, authoring). Policy refs are checked with the policy (validate-policies).
 */
export const checkReferences = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const expect = (ref: string, sectionName: SectionName, path: string): void => {
    const entries = scenario[sectionName] as Readonly<Record<string, unknown>> | undefined;
    if (declares(entries, ref)) return;
    const known = Object.keys(entries ?? {});
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

  const entities = new Set(entityNames(scenario.entities));
  const hasActionContracts = Object.keys(scenario.action_contracts ?? {}).length > 0;
  for (const [agent, definition] of Object.entries(scenario.agents ?? {})) {
    const at = `agents.${agent}`;
    if (definition.entity === '') {
      diagnostics.push(error('scenario.reference-unresolved', `${at}.entity`, `agent "${agent}" has no entity: set ${at}.entity to one of the scenario's entities.`));
    } else if (!entities.has(definition.entity)) {
      diagnostics.push(
        error(
          'scenario.reference-unresolved',
          `${at}.entity`,
          `${at}.entity names entity "${definition.entity}", which is not declared under entities: declare it or fix the name.`,
        ),
      );
    }
    // Without action contracts, RAES keeps agents' actions as free names; with them, each must name one.
    if (hasActionContracts) each(definition.actions, 'action_contracts', `${at}.actions`);
    each(definition.observation_boundaries, 'observation_boundaries', `${at}.observation_boundaries`);
  }
  for (const [contract, definition] of Object.entries(scenario.action_contracts ?? {})) {
    (definition.interactions ?? []).forEach((interaction, i) =>
      each(interaction.related_actions, 'action_contracts', `action_contracts.${contract}.interactions.${i}.related_actions`),
    );
  }
  for (const [spec, definition] of Object.entries(scenario.behavior_specifications ?? {})) {
    const at = `behavior_specifications.${spec}`;
    each(definition.participant_refs, 'agents', `${at}.participant_refs`);
    each(definition.action_contract_refs, 'action_contracts', `${at}.action_contract_refs`);
    each(definition.observation_boundary_refs, 'observation_boundaries', `${at}.observation_boundary_refs`);
    each(definition.outcome_interpretation_rule_refs, 'outcome_interpretation_rules', `${at}.outcome_interpretation_rule_refs`);
    const roles = new Set(
      Object.values(scenario.agents ?? {})
        .map((agent) => scenario.entities?.[agent.entity]?.role)
        .filter((role): role is NonNullable<typeof role> => role !== undefined && role !== null),
    );
    (definition.participant_role_refs ?? []).forEach((role, i) => {
      if (!roles.has(role as never)) {
        diagnostics.push(
          error(
            'scenario.reference-unresolved',
            `${at}.participant_role_refs.${i}`,
            `no agent of the scenario has an entity with role "${role}": give an agent's entity that role or remove it from ${at}.participant_role_refs.`,
          ),
        );
      }
    });
    for (const [affordance, a] of Object.entries(definition.tool_affordances ?? {})) {
      const p = `${at}.tool_affordances.${affordance}`;
      each(a.action_contract_refs, 'action_contracts', `${p}.action_contract_refs`);
      each(a.observation_boundary_refs, 'observation_boundaries', `${p}.observation_boundary_refs`);
      each(a.participant_refs, 'agents', `${p}.participant_refs`);
    }
  }
  for (const [clock, definition] of Object.entries(scenario.clocks ?? {})) {
    expect(definition.time_domain_ref, 'time_domains', `clocks.${clock}.time_domain_ref`);
  }
  for (const [policy, definition] of Object.entries(scenario.time_progression_policies ?? {})) {
    expect(definition.clock_ref, 'clocks', `time_progression_policies.${policy}.clock_ref`);
  }
  for (const [mapping, definition] of Object.entries(scenario.time_domain_mappings ?? {})) {
    expect(definition.source_domain_ref, 'time_domains', `time_domain_mappings.${mapping}.source_domain_ref`);
    expect(definition.target_domain_ref, 'time_domains', `time_domain_mappings.${mapping}.target_domain_ref`);
  }
  const index = buildDeclarationIndex(scenario);
  for (const [constraint, definition] of Object.entries(scenario.temporal_constraints ?? {})) {
    const at = `temporal_constraints.${constraint}`;
    expect(definition.clock_ref, 'clocks', `${at}.clock_ref`);
    definition.subject_refs.forEach((ref, i) => {
      const found = index.resolve(ref);
      if (found.some((d) => d.kind === 'workflow-step')) return;
      const candidates = found.filter((d) => d.referenceable);
      if (candidates.length === 0) {
        diagnostics.push(
          error('scenario.reference-unresolved', `${at}.subject_refs.${i}`, `subject ref "${ref}" does not name any declared element: name a declared node, agent, action contract, behavior specification or other element.`),
        );
      } else if (candidates.length > 1) {
        diagnostics.push(
          error(
            'scenario.reference-ambiguous',
            `${at}.subject_refs.${i}`,
            `subject ref "${ref}" is ambiguous: use one of ${candidates.map((d) => d.address).sort().join(', ')}.`,
          ),
        );
      }
    });
  }
  return diagnostics;
};

/** What RAES requires of each content entry (its Content model), and that it lands on a declared VM node. */
export const checkContent = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [name, content] of Object.entries(scenario.content ?? {})) {
    const at = `content.${name}`;
    const missing = (field: string, what: string): void => {
      diagnostics.push(error('scenario.content-incomplete', `${at}.${field}`, `${what}: set ${at}.${field}.`));
    };
    const target = content.target ?? '';
    if (target === '') missing('target', `content "${name}" has no target node`);
    if (content.type === 'file' && (content.path ?? '') === '') missing('path', `file content "${name}" has no path`);
    if (content.type === 'directory' && (content.destination ?? '') === '') missing('destination', `directory content "${name}" has no destination`);
    const hasSource = content.source !== undefined && content.source !== null;
    const hasItems = (content.items ?? []).length > 0;
    // A search-index schema is the one dataset without a source or items (Content._validate_search_index_schema_content).
    const searchIndexSchema = content.service_materialization?.interface_profile === SEARCH_INDEX_PROFILE;
    if (searchIndexSchema && content.type !== 'dataset') {
      diagnostics.push(
        error('scenario.content-incomplete', `${at}.service_materialization`, `content "${name}" materializes a search-index schema, which only dataset content does: make it a dataset, or use interface_profile service-content.`),
      );
    } else if (searchIndexSchema && (hasSource || hasItems)) {
      diagnostics.push(
        error('scenario.content-incomplete', `${at}.service_materialization`, `content "${name}" materializes a search-index schema, which carries no source or items: remove ${at}.${hasSource ? 'source' : 'items'}.`),
      );
    }
    if (content.type === 'dataset' && !searchIndexSchema && !hasSource && !hasItems) {
      diagnostics.push(
        error('scenario.content-incomplete', at, `dataset content "${name}" has neither a source nor items: set ${at}.source or list at least one entry in ${at}.items.`),
      );
    }
    if (target !== '') {
      const node = scenario.nodes?.[target];
      if (node === undefined) {
        diagnostics.push(error('scenario.reference-unresolved', `${at}.target`, `content "${name}" targets node "${target}", which is not declared under nodes: declare it or fix the name.`));
      } else if (node.type !== 'vm') {
        diagnostics.push(error('scenario.content-incomplete', `${at}.target`, `content "${name}" targets node "${target}", which is a ${node.type}: target a vm node.`));
      }
    }
  }
  return diagnostics;
};

/**
 * A boundary's view rules and view transitions classify only what the boundary lists (RAES's view-rule and
 * view-transition binding): each `information_ref` is one of its observable, hidden or evidence refs, each
 * evidence ref of a rule or transition one of its evidence refs.
 */
export const checkViewRules = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [name, boundary] of Object.entries(scenario.observation_boundaries ?? {})) {
    const declared = new Set([...(boundary.observable_refs ?? []), ...(boundary.hidden_refs ?? []), ...(boundary.evidence_refs ?? [])]);
    const evidence = new Set(boundary.evidence_refs ?? []);
    (boundary.view_rules ?? []).forEach((rule, i) => {
      const at = `observation_boundaries.${name}.view_rules.${i}`;
      if (!declared.has(rule.information_ref)) {
        diagnostics.push(
          error(
            'scenario.view-rule-unclassified',
            `${at}.information_ref`,
            `view rule ${i} of boundary "${name}" classifies "${rule.information_ref}", which the boundary does not list: add it to its observable_refs, hidden_refs or evidence_refs.`,
          ),
        );
      }
      for (const ref of rule.evidence_refs ?? []) {
        if (!evidence.has(ref)) {
          diagnostics.push(
            error('scenario.view-rule-unclassified', `${at}.evidence_refs`, `view rule ${i} of boundary "${name}" cites evidence "${ref}", which is not in the boundary's evidence_refs: add it there.`),
          );
        }
      }
    });
    (boundary.view_transitions ?? []).forEach((transition, i) => {
      const at = `observation_boundaries.${name}.view_transitions.${i}`;
      const id = transition.transition_id;
      if (!declared.has(transition.information_ref)) {
        diagnostics.push(
          error(
            'scenario.view-rule-unclassified',
            `${at}.information_ref`,
            `view transition "${id}" of boundary "${name}" changes the view of "${transition.information_ref}", which the boundary does not list: add it to its observable_refs, hidden_refs or evidence_refs.`,
          ),
        );
      }
      for (const ref of transition.evidence_refs ?? []) {
        if (!evidence.has(ref)) {
          diagnostics.push(
            error('scenario.view-rule-unclassified', `${at}.evidence_refs`, `view transition "${id}" of boundary "${name}" cites evidence "${ref}", which is not in the boundary's evidence_refs: add it there.`),
          );
        }
      }
    });
  }
  return diagnostics;
};
