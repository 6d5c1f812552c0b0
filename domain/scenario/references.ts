import { ScenarioDocument } from './document';
import { contentAddress, nodeAddress, serviceAddress } from '../addresses';

/**
 * How authored refs name things: a bare name (`x`) or a section-qualified one (`action_contracts.x`).
 * Returns the name when it names an entry of the section, else undefined.
 */
export const resolveName = (
  ref: string,
  sectionName: string,
  entries: Readonly<Record<string, unknown>> | undefined,
): string | undefined => {
  if (entries === undefined) return undefined;
  const prefix = `${sectionName}.`;
  const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : ref;
  return Object.prototype.hasOwnProperty.call(entries, name) ? name : undefined;
};

/** The reference string a boundary uses to classify a tool affordance (docs/rules.md, authoring). */
export const affordanceClassificationRef = (spec: string, affordance: string): string =>
  `behavior_specifications.${spec}.tool_affordances.${affordance}`;

/**
 * Resolves a target or support ref to a compiled provision address (docs/rules.md, compilation). Refs that
 * resolve to nothing, or to more than one thing, give undefined and drop out.
 */
export const resolveTargetRef = (ref: string, scenario: ScenarioDocument): string | undefined => {
  const nodes = scenario.nodes ?? {};
  const parts = ref.split('.');
  if (parts[0] === 'nodes') {
    const [, node, services, service] = parts;
    if (node === undefined || nodes[node] === undefined) return undefined;
    if (parts.length === 2) return nodeAddress(node);
    if (parts.length === 4 && services === 'services' && service !== undefined) {
      const known = (nodes[node]?.services ?? []).some((s) => s.name === service);
      return known ? serviceAddress(node, service) : undefined;
    }
    return undefined;
  }
  if (parts[0] === 'content') {
    const [, content] = parts;
    if (parts.length !== 2 || content === undefined) return undefined;
    return scenario.content !== undefined && scenario.content[content] !== undefined ? contentAddress(content) : undefined;
  }
  if (parts.length !== 1) return undefined;
  const candidates: string[] = [];
  if (nodes[ref] !== undefined) candidates.push(nodeAddress(ref));
  for (const [node, definition] of Object.entries(nodes)) {
    for (const service of definition.services ?? []) {
      if (service.name === ref) candidates.push(serviceAddress(node, service.name));
    }
  }
  return candidates.length === 1 ? candidates[0] : undefined;
};
