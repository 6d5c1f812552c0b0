import { ScenarioDocument } from './document';

/**
 * The declared identities of a scenario and the spellings that name them, as RAES indexes them to
 * resolve generic refs (a `tool_ref`, a temporal constraint's `subject_refs`): each declaration has its
 * canonical address (`content.scanner`, `nodes.web.services.http`) and, for most, a bare alias (`scanner`).
 * A ref resolves when exactly one declaration answers to it.
 */

export interface Declaration {
  readonly kind: string;
  readonly address: string;
  /** Whether a generic ref (a subject ref) may name it; a `tool_ref` may name any declaration. */
  readonly referenceable: boolean;
}

export interface DeclarationIndex {
  /** Every declaration a spelling names: none (unresolved), one, or several (ambiguous). */
  readonly resolve: (ref: string) => ReadonlyArray<Declaration>;
}

/** Map sections indexed generically, as `<section>.<name>` with the bare alias `<name>`. */
const GENERIC_SECTIONS = [
  'features',
  'conditions',
  'propositions',
  'assertions',
  'vulnerabilities',
  'injects',
  'events',
  'scripts',
  'stories',
  'generated_artifacts',
  'persistent_volumes',
  'accounts',
  'identity_domains',
  'identity_forests',
  'identity_facades',
  'deployment_tenants',
  'deployment_cells',
  'relationships',
  'agents',
  'action_contracts',
  'observation_boundaries',
  'outcome_interpretation_rules',
  'behavior_specifications',
  'evidence_requirements',
  'time_domains',
  'clocks',
  'time_domain_mappings',
  'time_progression_policies',
  'temporal_constraints',
  'objectives',
  'variation_points',
] as const;

const NOT_REFERENCEABLE = new Set<string>(['outcome_interpretation_rules']);

const keysOf = (value: unknown): string[] =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];

export const buildDeclarationIndex = (scenario: ScenarioDocument): DeclarationIndex => {
  const bySpelling = new Map<string, Declaration[]>();
  const add = (declaration: Declaration, aliases: ReadonlyArray<string> = []): void => {
    for (const spelling of [declaration.address, ...aliases]) {
      const known = bySpelling.get(spelling);
      if (known === undefined) bySpelling.set(spelling, [declaration]);
      else if (!known.some((d) => d.address === declaration.address)) known.push(declaration);
    }
  };

  add({ kind: 'scenario', address: `scenario.${scenario.name}`, referenceable: false });
  for (const section of GENERIC_SECTIONS) {
    for (const name of keysOf(scenario[section])) {
      add({ kind: section, address: `${section}.${name}`, referenceable: !NOT_REFERENCEABLE.has(section) }, [name]);
    }
  }
  for (const [spec, definition] of Object.entries(scenario.behavior_specifications ?? {})) {
    for (const affordance of Object.keys(definition.tool_affordances ?? {})) {
      add({ kind: 'tool-affordance', address: `behavior_specifications.${spec}.tool_affordances.${affordance}`, referenceable: true });
    }
  }
  for (const name of keysOf(scenario.variables)) {
    add({ kind: 'variable', address: `variables.${name}`, referenceable: true }, [name]);
  }
  for (const [node, definition] of Object.entries(scenario.nodes ?? {})) {
    add({ kind: 'node', address: `nodes.${node}`, referenceable: true }, [node]);
    for (const service of definition.services ?? []) {
      if (service.name !== undefined && service.name !== '') {
        add({ kind: 'service', address: `nodes.${node}.services.${service.name}`, referenceable: true });
      }
    }
  }
  for (const name of keysOf(scenario.infrastructure)) {
    add({ kind: 'infrastructure', address: `infrastructure.${name}`, referenceable: true });
  }
  const addEntities = (entities: unknown, prefix: string): void => {
    for (const name of keysOf(entities)) {
      const relative = prefix === '' ? name : `${prefix}.${name}`;
      add({ kind: 'entity', address: `entities.${relative}`, referenceable: true }, [relative]);
      addEntities((entities as Record<string, { entities?: unknown }>)[name]?.entities, relative);
    }
  };
  addEntities(scenario.entities, '');
  for (const [content, definition] of Object.entries(scenario.content ?? {})) {
    add({ kind: 'content', address: `content.${content}`, referenceable: true }, [content]);
    for (const item of definition.items ?? []) {
      add({ kind: 'content-item', address: `content.${content}.items.${item.name}`, referenceable: true }, [item.name]);
    }
  }
  for (const [workflow, definition] of Object.entries((scenario.workflows ?? {}) as Record<string, unknown>)) {
    add({ kind: 'workflow', address: `workflows.${workflow}`, referenceable: true }, [workflow]);
    for (const step of keysOf((definition as { steps?: unknown } | null)?.steps)) {
      add({ kind: 'workflow-step', address: `workflows.${workflow}.steps.${step}`, referenceable: false }, [`${workflow}.${step}`]);
    }
  }

  return { resolve: (ref) => bySpelling.get(ref) ?? [] };
};
