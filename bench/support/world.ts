import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadManifestDocument, type ManifestDocument } from '../../domain/manifest';
import { loadScenario, type CompiledScenario } from '../../domain/scenario';
import type { Database } from 'better-sqlite3';
import { openSqliteEventStore, type SqliteEventStore } from '../../adapters/event-store';
import { ChainedEventStore, SEAL_EVERY } from '../../adapters/event-store/chained-event-store';
import type { OpenedEventStore } from '../../adapters/event-store/store-tail';
import { openViewsDatabase } from '../../adapters/views/views-database';

/**
 * The portal-probe example grown to the size a benchmark needs: `agents` participants of the one
 * policy, a cadence of one tick, attempts that never run out, and `maxInFlight` attempts at once.
 */

const EXAMPLES = resolve(__dirname, '../../examples');

export const POLICY = 'participant.autonomous-execution.participant-behavior';
export const agentName = (index: number, prefix = 'agent'): string => (index === 0 ? 'participant-agent' : `${prefix}-${index}`);
export const participantOf = (index: number, prefix = 'agent'): string => `participant.behavior.${agentName(index, prefix)}`;

export interface BenchWorldOptions {
  readonly agents: number;
  readonly maxInFlight?: number;
  /** Names agents `<prefix>-<n>` (default `agent`). */
  readonly agentPrefix?: string;
}

export const benchScenario = (options: BenchWorldOptions): CompiledScenario => {
  const document = parse(readFileSync(join(EXAMPLES, 'portal-probe.scenario.yaml'), 'utf8')) as Record<string, any>;
  const spec = document.behavior_specifications['participant-behavior'];
  const template = document.agents['participant-agent'];
  for (let index = 1; index < options.agents; index++) {
    document.agents[agentName(index, options.agentPrefix)] = { entity: template.entity, actions: [...template.actions], observation_boundaries: [...template.observation_boundaries] };
    spec.participant_refs.push(agentName(index, options.agentPrefix));
  }
  const policy = spec.autonomous_execution;
  policy.max_action_attempts = 1_000_000;
  policy.failure_policy = 'continue';
  policy.max_in_flight = options.maxInFlight ?? 1;
  document.temporal_constraints['probe-cadence'].cadence_ticks = 1;
  const loaded = loadScenario(stringify(document));
  if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.compiled;
};

export const benchManifest = (): ManifestDocument => {
  const loaded = loadManifestDocument(readFileSync(join(EXAMPLES, 'portal-probe.manifest.json'), 'utf8'));
  if (loaded._tag === 'Left') throw new Error(loaded.left.map((d) => d.message).join('\n'));
  return loaded.right;
};

export const openBenchStore = (path: string): SqliteEventStore => {
  const opened = openSqliteEventStore({ path });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};

/**
 * A store as every engine writer opens it (`raes-tools run`): behind the hash chain, with its seals
 * (adapters/cli/workspace.ts; SQLite's and PostgreSQL's positions are consecutive).
 */
export const throughChain = (store: OpenedEventStore): ChainedEventStore => new ChainedEventStore(store, SEAL_EVERY, true);

/** The SQLite store as every engine writer opens it. */
export const openBenchChainedStore = (path: string): ChainedEventStore => throughChain(openBenchStore(path));

/** The views database as the CLI opens it (WAL, synchronous=NORMAL, its checkpoint interval). */
export const openBenchViews = (path: string): Database => {
  const opened = openViewsDatabase(path);
  if ('kind' in opened) throw new Error(opened.reason);
  return opened;
};

/** A clock that moves one millisecond per reading: every event has its own timestamp, no syscalls. */
export const steppingClock = (start = Date.parse('2026-04-11T10:00:00Z')): (() => Date) => {
  let now = start;
  return () => new Date((now += 1));
};
