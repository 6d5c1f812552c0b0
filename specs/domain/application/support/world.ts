import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadManifestDocument, type ManifestDocument } from '../../../../domain/manifest';
import { loadScenario, type CompiledScenario } from '../../../../domain/scenario';
import { openSqliteEventStore, type SqliteEventStore } from '../../../../adapters/event-store';
import type { EventStore } from '../../../../domain/ports/event-store';
import { HarnessRuntime, RuntimeManager } from '../../../../domain/application';
import { probeResult } from '../../../../examples/harness/scripted-harness';

/** The portal-probe example, optionally with more participants and another cadence, as the runtime specs use it. */

const EXAMPLES = resolve(__dirname, '../../../../examples');

export const POLICY = 'participant.autonomous-execution.participant-behavior';
export const PARTICIPANT = 'participant.behavior.participant-agent';
export const participantOf = (agent: string): string => `participant.behavior.${agent}`;

export interface WorldOptions {
  /** Extra agents next to participant-agent, all participants of the policy. */
  readonly extraAgents?: number;
  readonly maxActionAttempts?: number;
  readonly cadenceTicks?: number;
  readonly startTick?: number;
  readonly failurePolicy?: 'stop' | 'continue';
  readonly maxInFlight?: number;
}

export const scenarioText = (options: WorldOptions = {}): string => {
  const document = parse(readFileSync(join(EXAMPLES, 'portal-probe.scenario.yaml'), 'utf8')) as Record<string, any>;
  const spec = document.behavior_specifications['participant-behavior'];
  for (let i = 1; i <= (options.extraAgents ?? 0); i++) {
    document.agents[`agent-${i}`] = { ...document.agents['participant-agent'] };
    spec.participant_refs.push(`agent-${i}`);
  }
  const policy = spec.autonomous_execution;
  if (options.maxActionAttempts !== undefined) policy.max_action_attempts = options.maxActionAttempts;
  if (options.failurePolicy !== undefined) policy.failure_policy = options.failurePolicy;
  if (options.maxInFlight !== undefined) policy.max_in_flight = options.maxInFlight;
  if (options.cadenceTicks !== undefined) document.temporal_constraints['probe-cadence'].cadence_ticks = options.cadenceTicks;
  if (options.startTick !== undefined) document.temporal_constraints['probe-cadence'].start = { tick: options.startTick };
  return stringify(document);
};

export const compiledScenario = (options: WorldOptions = {}): CompiledScenario => {
  const loaded = loadScenario(scenarioText(options));
  if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.compiled;
};

export const manifestText = (options: { readonly claim?: boolean; readonly maxToolActionsPerInvocation?: number } = {}): string => {
  const document = JSON.parse(readFileSync(join(EXAMPLES, 'portal-probe.manifest.json'), 'utf8'));
  if (options.claim === false) delete document.participant_runtime.invocation_tool_actions;
  else if (options.maxToolActionsPerInvocation !== undefined) {
    document.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = options.maxToolActionsPerInvocation;
  }
  return JSON.stringify(document);
};

export const manifest = (options: Parameters<typeof manifestText>[0] = {}): ManifestDocument => {
  const loaded = loadManifestDocument(manifestText(options));
  if (loaded._tag === 'Left') throw new Error(loaded.left.map((d) => d.message).join('\n'));
  return loaded.right;
};

export const openSqlite = (path: string): SqliteEventStore => {
  const opened = openSqliteEventStore({ path });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};

/** A clock that moves one second per reading, so every event has its own timestamp. */
export const steppingClock = (start = Date.parse('2026-04-11T10:00:00Z')): (() => Date) => {
  let now = start;
  return () => new Date((now += 1000));
};

/** A started runtime manager of the example in episode-1 over `store`, its harness returning the probe result at once. */
export const startedProbeManager = async (store: EventStore, options: WorldOptions = {}): Promise<RuntimeManager> => {
  const manager = new RuntimeManager({
    compiled: compiledScenario(options),
    manifest: manifest(),
    runtime: new HarnessRuntime(async (request) => probeResult(request, [])),
    store,
    episodeId: 'episode-1',
    clock: steppingClock(),
  });
  await manager.start();
  return manager;
};
