import type { CompiledScenario } from '../../domain/scenario';
import type { ManifestDocument } from '../../domain/manifest';
import type { SchedulerState } from '../../domain/scheduler';
import type { ParticipantRuntime } from '../../domain/application/participant-runtime';
import { RemotePortServer } from '../http/remote-port-server';
import type { RuntimeManager, RuntimeProgress } from '../../domain/application/runtime-manager';
import type { OperationStatus } from '../../domain/application/operations';
import { buildAuditReport, type AuditReport } from '../cli/audit-report';
import { buildManager, scheduledPairs, summarizeScheduler, type SchedulerSummary } from '../cli/engine';
import { formatDiagnostics, loadEngineInputs } from '../cli/inputs';
import { openWorkspace, writeJob } from '../cli/workspace';
import { runEpisode } from '../cli/episode-choice';
import { startLiveTelemetry, telemetryConfigOf, type LiveTelemetry } from '../telemetry';

/**
 * The engine for a program that embeds it, wired as `raes-tools run` wires it: the event store and the
 * views of a data directory (with its writer lock), the scenario and manifest checked together, and
 * the runtime manager over the caller's participant runtime, recovered and ready.
 */

export interface CreateEngineOptions {
  /** The scenario (YAML) and backend manifest (JSON) files. */
  readonly scenarioPath: string;
  readonly manifestPath: string;
  /** Runs each due invocation; with the tool-actions claim it also receives each invocation's port. */
  readonly runtime: ParticipantRuntime;
  /** `sqlite` (default), `memory` (keeps nothing) or `eventstoredb` (ESDB_CONNECTION_STRING). */
  readonly store?: 'sqlite' | 'memory' | 'eventstoredb';
  /** Where the SQLite store, the views and the job file live (default `esdata`). */
  readonly dataDir?: string;
  /** Default: the only episode the data directory ran, else a fresh one; a store holds many episodes side by side. */
  readonly episodeId?: string;
  /** Also serve each invocation's port over HTTP on 127.0.0.1 (the remote port), for harnesses in other processes. */
  readonly remotePorts?: boolean;
  readonly onProgress?: (progress: RuntimeProgress) => void;
  /** Where OpenTelemetry settings are read (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface Engine {
  readonly episodeId: string;
  readonly dataDir: string;
  readonly manager: RuntimeManager;
  /** The remote port server, when `remotePorts` was asked for. */
  readonly remotePorts: RemotePortServer | undefined;
  /** Advances the shared logical clock by `ticks`, running the invocations that fall due. */
  advance(ticks?: number): Promise<void>;
  /** Advances until every scheduler has stopped or used its attempts. */
  runUntilIdle(): Promise<void>;
  schedulers(): readonly SchedulerSummary[];
  getOperation(operationId: string): Promise<OperationStatus | undefined>;
  /** The stored tool history, verified (the audit `raes-tools audit` prints). */
  audit(): Promise<AuditReport>;
  /** Emits what the log holds now to the OpenTelemetry endpoint, when one is configured, and sends it. */
  flushTelemetry(): Promise<void>;
  /** Stops the manager, flushes telemetry and releases the store, the views and the lock. */
  close(): Promise<void>;
}

/** The engine could not be created; `message` says what to fix. */
export class EngineNotCreated extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineNotCreated';
  }
}

const idleBound = (compiled: CompiledScenario): number =>
  Math.max(0, ...scheduledPairs(compiled).map((pair) => pair.startTick + pair.cadenceTicks * pair.maxActionAttempts)) + 1;

export const createEngine = async (options: CreateEngineOptions): Promise<Engine> => {
  const inputs = await loadEngineInputs(options.scenarioPath, options.manifestPath);
  if (!inputs.ok) {
    throw new EngineNotCreated(inputs.kind === 'unreadable' ? inputs.message : `the scenario and manifest do not check:\n${formatDiagnostics(inputs.diagnostics)}`);
  }
  const compiled: CompiledScenario = inputs.compiled;
  const manifest: ManifestDocument = inputs.manifest;
  const opened = await openWorkspace(
    { store: options.store ?? 'sqlite', dataDir: options.dataDir ?? 'esdata' },
    { durable: false, writer: 'embedded engine', followsLog: true },
  );
  if (!opened.ok) throw new EngineNotCreated(opened.message);
  const workspace = opened.workspace;
  let remotePorts: RemotePortServer | undefined;
  let telemetry: LiveTelemetry | undefined;
  try {
    const chosen = runEpisode(workspace, options.episodeId);
    if (!chosen.ok) throw new EngineNotCreated(chosen.message);
    const episodeId = chosen.value;
    if (workspace.kind !== 'memory') writeJob(workspace.dataDir, { scenario_path: options.scenarioPath, manifest_path: options.manifestPath, episode_id: episodeId });
    if (options.remotePorts === true) {
      remotePorts = new RemotePortServer();
      await remotePorts.start();
    }
    const built = buildManager({
      workspace,
      compiled,
      manifest,
      episodeId,
      runtime: options.runtime,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      onRefusal: (refusal) => telemetry?.onRefusal(refusal),
      ...(remotePorts === undefined ? {} : { remotePorts }),
    });
    if (!built.ok) throw new EngineNotCreated(built.message);
    const manager = built.value;
    await manager.start();
    telemetry = await startLiveTelemetry(workspace.store, telemetryConfigOf(options.env ?? process.env));
    const pairs = scheduledPairs(compiled);
    const status = (pair: (typeof pairs)[number]): SchedulerState | undefined => manager.schedulerStatus(pair.policyAddress, pair.participantAddress);
    const schedulers = (): readonly SchedulerSummary[] => pairs.map((pair) => summarizeScheduler(pair, status(pair)));
    let closed = false;
    return {
      episodeId,
      dataDir: workspace.dataDir,
      manager,
      remotePorts,
      advance: (ticks = 1) => manager.advance(ticks),
      runUntilIdle: async () => {
        const bound = idleBound(compiled);
        for (let step = 0; step < bound && schedulers().some((scheduler) => scheduler.status === 'running'); step++) await manager.advance(1);
      },
      schedulers,
      getOperation: (operationId) => manager.getOperation(operationId),
      audit: async () => {
        const report = await buildAuditReport(workspace, { episode: episodeId });
        if (!report.ok) throw new Error(report.message);
        return report.value;
      },
      flushTelemetry: async () => {
        await telemetry?.flush();
      },
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await manager.close();
          await telemetry?.close();
        } finally {
          try {
            await remotePorts?.close();
          } finally {
            await workspace.close();
          }
        }
      },
    };
  } catch (error) {
    await telemetry?.close();
    await remotePorts?.close();
    await workspace.close();
    throw error;
  }
};
