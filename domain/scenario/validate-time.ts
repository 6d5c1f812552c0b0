import { Diagnostic, error } from './diagnostics';
import { ScenarioDocument } from './document';

/**
 * RAES's rules of the shared time model beyond its refs (which validate-references checks): one
 * progression policy per clock, reset and replay only on a clock that supports reset, and time-domain
 * mappings without duplicates or cycles, identity mappings only between equal domains.
 */
export const checkTimeModel = (scenario: ScenarioDocument): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const owners = new Map<string, string>();
  for (const [name, policy] of Object.entries(scenario.time_progression_policies ?? {})) {
    const at = `time_progression_policies.${name}`;
    const owner = owners.get(policy.clock_ref);
    if (owner !== undefined) {
      diagnostics.push(
        error('time.model-invalid', `${at}.clock_ref`, `clock "${policy.clock_ref}" already has progression policy "${owner}": give each clock one progression policy.`),
      );
    }
    owners.set(policy.clock_ref, name);
    const clock = scenario.clocks?.[policy.clock_ref];
    if (clock === undefined || clock.supports_reset === true) continue;
    if (policy.reset_behavior !== 'unsupported') {
      diagnostics.push(
        error('time.model-invalid', `${at}.reset_behavior`, `progression policy "${name}" resets clock "${policy.clock_ref}", which does not support reset: set clocks.${policy.clock_ref}.supports_reset to true or reset_behavior to unsupported.`),
      );
    }
    if (policy.replay_behavior !== 'unsupported') {
      diagnostics.push(
        error('time.model-invalid', `${at}.replay_behavior`, `progression policy "${name}" replays clock "${policy.clock_ref}", which cannot open a reset segment: set clocks.${policy.clock_ref}.supports_reset to true or replay_behavior to unsupported.`),
      );
    }
  }

  const domains = scenario.time_domains ?? {};
  const edges = new Map<string, string[]>(Object.keys(domains).map((d) => [d, []]));
  const pairs = new Set<string>();
  for (const [name, mapping] of Object.entries(scenario.time_domain_mappings ?? {})) {
    const at = `time_domain_mappings.${name}`;
    const pair = `${mapping.source_domain_ref}\u0000${mapping.target_domain_ref}`;
    if (pairs.has(pair)) {
      diagnostics.push(error('time.model-invalid', at, `mapping "${name}" repeats the mapping from "${mapping.source_domain_ref}" to "${mapping.target_domain_ref}": keep one.`));
    }
    pairs.add(pair);
    const source = domains[mapping.source_domain_ref];
    const target = domains[mapping.target_domain_ref];
    if (source === undefined || target === undefined) continue;
    edges.get(mapping.source_domain_ref)?.push(mapping.target_domain_ref);
    // Ratio terms go up to 2^53 - 1, so their products are compared as exact integers.
    const samePeriod =
      BigInt(source.tick_period_seconds.numerator) * BigInt(target.tick_period_seconds.denominator) ===
      BigInt(target.tick_period_seconds.numerator) * BigInt(source.tick_period_seconds.denominator);
    if (mapping.mapping_kind === 'identity' && (!samePeriod || source.epoch !== target.epoch)) {
      diagnostics.push(
        error('time.model-invalid', `${at}.mapping_kind`, `identity mapping "${name}" joins domains with different tick periods or epochs: use affine_rational or align the domains.`),
      );
    }
  }
  if (hasCycle(edges)) {
    diagnostics.push(error('time.model-invalid', 'time_domain_mappings', 'the time-domain mappings form a cycle: remove a mapping so that no domain maps back to itself.'));
  }
  return diagnostics;
};

const hasCycle = (edges: ReadonlyMap<string, ReadonlyArray<string>>): boolean => {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string): boolean => {
    const seen = state.get(node);
    if (seen === 'visiting') return true;
    if (seen === 'done') return false;
    state.set(node, 'visiting');
    for (const next of edges.get(node) ?? []) if (visit(next)) return true;
    state.set(node, 'done');
    return false;
  };
  return [...edges.keys()].some(visit);
};
