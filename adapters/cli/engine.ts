import type { ManifestDocument } from '../../domain/manifest';
import type { CompiledScenario } from '../../domain/scenario';
import type { SchedulerState } from '../../domain/scheduler';
import { HarnessRuntime, RegistrationRefused, RuntimeManager, type ParticipantRuntime, type RefusalListener, type RuntimeProgress } from '../../domain/application';
import type { RemotePortServer } from '../http';
import { formatDiagnostics, loadEngineInputs } from './inputs';
import { EXIT_INVALID, EXIT_USAGE } from './io';
import { fail, type Built } from './built';
import { chooseEpisode } from './episode-choice';
import { unreachableStore } from './store-reachable';
import { openWorkspace, readJob, type Job, type StoreFlags, type Workspace } from './workspace';
import { openInvocationsIndex } from '../views/open-invocations-index';
import { DEFAULT_LEASE_TIMING, engineOwnerId, LeasedRuntimeManager, type LeaseTiming } from '../engine/leased-runtime-manager';

/** Builds the runtime manager the CLI commands share, and the operator's view of it. */

export { fail, type Built } from './built';

export interface ManagerInputs {
  readonly workspace: Workspace;
  readonly compiled: CompiledScenario;
  readonly manifest: ManifestDocument;
  readonly episodeId: string;
  readonly runtime: ParticipantRuntime;
  readonly onProgress?: (progress: RuntimeProgress) => void;
  /** Told of every refused port call (telemetry). */
  readonly onRefusal?: RefusalListener;
  /** Grants each invocation's port on this server too (harnesses in other processes). */
  readonly remotePorts?: RemotePortServer;
  /** On a store several engines share: the participants this engine takes when free (default all). */
  readonly claims?: ReadonlySet<string>;
}

/** RAES_LEASE_MS: how long a scheduler lease lasts unrenewed; renewed, and given up, a third of it early. */
export const leaseTimingOf = (env: NodeJS.ProcessEnv): { ok: true; timing: LeaseTiming } | { ok: false; message: string } => {
  const text = env.RAES_LEASE_MS;
  if (text === undefined || text.trim() === '') return { ok: true, timing: DEFAULT_LEASE_TIMING };
  const ms = Number(text);
  if (!/^\d+$/.test(text.trim()) || ms < 1000 || ms > 3_600_000) {
    return { ok: false, message: `expected a whole number of milliseconds from 1000 to 3600000 at RAES_LEASE_MS, got '${text.slice(0, 40)}'` };
  }
  const third = Math.floor(ms / 3);
  return { ok: true, timing: { durationMs: ms, renewEveryMs: third, marginMs: third } };
};

/** Stores several engines may share: each participant runs in the engine holding its lease in the store. */
const sharedStore = (workspace: Workspace): boolean => workspace.kind === 'postgres' || workspace.kind === 'eventstoredb';

export const buildManager = (inputs: ManagerInputs, env: NodeJS.ProcessEnv = process.env): Built<RuntimeManager> => {
  const timing = leaseTimingOf(env);
  if (!timing.ok) return fail(EXIT_USAGE, timing.message);
  try {
    const options = {
      compiled: inputs.compiled,
      manifest: inputs.manifest,
      runtime: inputs.runtime,
      store: inputs.workspace.store,
      openInvocations: openInvocationsIndex(inputs.workspace.store, inputs.workspace.views.database),
      episodeId: inputs.episodeId,
      clock: () => new Date(),
      ...(inputs.onProgress === undefined ? {} : { onProgress: inputs.onProgress }),
      ...(inputs.onRefusal === undefined ? {} : { onRefusal: inputs.onRefusal }),
      ...(inputs.remotePorts === undefined ? {} : { remotePorts: inputs.remotePorts }),
    };
    const manager = sharedStore(inputs.workspace)
      ? new LeasedRuntimeManager(options, { owner: engineOwnerId(), timing: timing.timing, ...(inputs.claims === undefined ? {} : { claims: inputs.claims }) })
      : new RuntimeManager(options);
    return { ok: true, value: manager };
  } catch (error) {
    if (error instanceof RegistrationRefused) return fail(EXIT_INVALID, error.message);
    throw error;
  }
};

/** Operator commands never advance the clock, so their runtime never runs an invocation. */
const operatorRuntime = (): ParticipantRuntime =>
  new HarnessRuntime(async () => {
    throw new Error('operator commands run no invocation');
  });

/** Each (v1 policy, participant) pair the manager schedules. */
export interface ScheduledPair {
  readonly policyAddress: string;
  readonly participantAddress: string;
  readonly maxActionAttempts: number;
  readonly startTick: number;
  readonly cadenceTicks: number;
}

export const scheduledPairs = (compiled: CompiledScenario): readonly ScheduledPair[] => {
  const pairs: ScheduledPair[] = [];
  for (const policy of compiled.policies) {
    if (policy.profile !== 'participant-autonomous-execution/v1') continue;
    for (const participant of policy.participantAddresses) {
      pairs.push({
        policyAddress: policy.address,
        participantAddress: participant,
        maxActionAttempts: policy.maxActionAttempts,
        startTick: policy.cadence.startTick,
        cadenceTicks: policy.cadence.cadenceTicks,
      });
    }
  }
  return pairs;
};

/** Scheduler state as the CLI prints it (snake_case, like the schedulers view). */
export interface SchedulerSummary {
  readonly policy_address: string;
  readonly participant_address: string;
  readonly status: 'running' | 'stopped' | 'exhausted';
  readonly attempts_started: number;
  readonly max_action_attempts: number;
  readonly stopped_by: { readonly reason: string; readonly action_instance_id: string } | null;
  readonly unresolved_action_ids: readonly string[];
}

export const summarizeScheduler = (pair: ScheduledPair, state: SchedulerState | undefined): SchedulerSummary => {
  const attempts = state?.attemptsStarted ?? 0;
  const stopped = state?.status === 'stopped';
  return {
    policy_address: pair.policyAddress,
    participant_address: pair.participantAddress,
    status: stopped ? 'stopped' : attempts >= pair.maxActionAttempts && (state?.inFlight.size ?? 0) === 0 ? 'exhausted' : 'running',
    attempts_started: attempts,
    max_action_attempts: pair.maxActionAttempts,
    stopped_by: state?.stoppedBy ?? null,
    unresolved_action_ids: state === undefined ? [] : [...state.unresolved],
  };
};

export interface OperatorEngine {
  readonly workspace: Workspace;
  readonly job: Job;
  readonly compiled: CompiledScenario;
  readonly manager: RuntimeManager;
}

/** The engine an operator command acts through: the data directory's store, views and the episode's recorded job. */
export const openOperatorEngine = async (
  command: string,
  flags: StoreFlags & { readonly episode?: string },
  onProgress?: (progress: RuntimeProgress) => void,
): Promise<Built<OperatorEngine>> => {
  const opened = await openWorkspace(flags, { durable: true, writer: `raes-tools ${command}` });
  if (!opened.ok) return fail(opened.usage ? EXIT_USAGE : EXIT_INVALID, opened.message);
  const workspace = opened.workspace;
  const failAndClose = async (exit: number, message: string): Promise<Built<OperatorEngine>> => {
    await workspace.close();
    return fail(exit, message);
  };
  const unreachable = await unreachableStore(workspace);
  if (unreachable !== undefined) return failAndClose(EXIT_INVALID, unreachable);
  const chosen = await chooseEpisode(workspace, flags.episode);
  if (!chosen.ok) return failAndClose(chosen.exit, chosen.message);
  if (chosen.value === undefined) {
    return failAndClose(
      EXIT_USAGE,
      `nothing has run in ${workspace.dataDir} (no episode in its store, no job in jobs/): run \`raes-tools run <scenario> --manifest <m> --data-dir ${workspace.dataDir}\` first`,
    );
  }
  const episodeId = chosen.value;
  const job = readJob(workspace.dataDir, episodeId);
  if (job.kind === 'absent') {
    return failAndClose(
      EXIT_USAGE,
      `episode ${episodeId} has no job in ${workspace.dataDir} (no jobs/${episodeId}.json: another data dir ran it): run this command with --data-dir of the engine that ran it`,
    );
  }
  if (job.kind === 'invalid') return failAndClose(EXIT_USAGE, `the job file is unreadable: ${job.message}`);
  const inputs = await loadEngineInputs(job.job.scenario_path, job.job.manifest_path);
  if (!inputs.ok) {
    const detail = inputs.kind === 'unreadable' ? inputs.message : `the recorded scenario or manifest is invalid:\n${formatDiagnostics(inputs.diagnostics)}`;
    return failAndClose(EXIT_INVALID, `the job of episode ${episodeId} in ${workspace.dataDir} cannot be loaded: ${detail}`);
  }
  const manager = buildManager({
    workspace,
    compiled: inputs.compiled,
    manifest: inputs.manifest,
    episodeId,
    runtime: operatorRuntime(),
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  if (!manager.ok) return failAndClose(manager.exit, manager.message);
  return { ok: true, value: { workspace, job: job.job, compiled: inputs.compiled, manager: manager.value } };
};
