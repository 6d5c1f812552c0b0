import { startLiveTelemetry, telemetryConfigOf, type LiveTelemetry } from '../../telemetry';
import { Command, InvalidArgumentError, Option } from 'commander';
import { storeFlagsOf, storeOptions } from '../store-options';
import { buildAuditReport, type AuditReport } from '../audit-report';
import { formatAudit } from './audit';
import type { RuntimeProgress } from '../../../domain/application';
import { buildManager, fail, scheduledPairs, summarizeScheduler, type Built, type SchedulerSummary } from '../engine';
import { invocationLabel, lastSegment, plural, shortToolCall, table, toolTail } from '../format';
import { startHarness, type HarnessKind } from '../harness';
import { harnessLabel, parseHarnessSpec, type HarnessSpec } from '../harness-spec';
import { HarnessStartFailed } from '../plugin-harnesses';
import { formatDiagnostics, loadEngineInputs } from '../inputs';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { describeProgress } from '../progress';
import { unreachableStore } from '../store-reachable';
import { openWorkspace, writeJob, type StoreFlags } from '../workspace';
import { ChainedEventStore } from '../../event-store/chained-event-store';
import { invalidEpisodeId, runEpisode } from '../episode-choice';

export interface RunOptions extends StoreFlags {
  readonly scenarioPath: string;
  readonly manifestPath: string;
  readonly ticks?: number;
  readonly episode?: string;
  /** On a server store: the participants this engine takes when free (others once their engine died). */
  readonly participants?: readonly string[];
  readonly harness: HarnessKind | HarnessSpec;
  readonly toolDelayMs?: number;
  readonly json: boolean;
  /** Audit the store before closing it (the memory store is gone afterwards). */
  readonly audit?: boolean;
}

export interface InvocationRun {
  readonly invocation_action_instance_id: string;
  readonly tick: number | null;
  outcome: string | null;
  recovered: boolean;
  readonly tool_actions: { action_instance_id: string; tool_call_id: string | null; settlement: string | null }[];
}

export interface RunSummary {
  readonly data_dir: string;
  readonly store: string;
  readonly episode_id: string;
  readonly harness: string;
  readonly ticks: { readonly from: number; readonly to: number };
  readonly invocations: readonly InvocationRun[];
  readonly schedulers: readonly SchedulerSummary[];
  readonly storage_failures: readonly string[];
  /** Ctrl-C stopped the run between ticks. */
  readonly interrupted: boolean;
  /** Present when asked for (always on the memory store). */
  readonly audit?: AuditReport;
}

export const EXIT_INTERRUPTED = 130;

/**
 * The first Ctrl-C lets the invocations in hand finish and stops before the next tick; a second one
 * ends the process at once (the next run or `recover` settles what it left open).
 */
const interruptible = (progress: (line: string) => void): { requested(): boolean; dispose(): void } => {
  let requested = false;
  const onSignal = (): void => {
    if (requested) process.exit(EXIT_INTERRUPTED);
    requested = true;
    progress('interrupted: finishing the invocation in hand, then stopping (Ctrl-C again to stop at once; `raes-tools recover` then settles what is left open)');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested: () => requested,
    dispose: () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
};

/** Folds progress reports into what each invocation did. */
class RunRecorder {
  readonly invocations: InvocationRun[] = [];
  readonly storageFailures: string[] = [];
  private readonly byId = new Map<string, InvocationRun>();

  record(progress: RuntimeProgress): void {
    switch (progress.kind) {
      case 'invocation_opened':
        this.invocation(progress.invocation_action_instance_id, progress.tick);
        break;
      case 'tool_action_admitted':
        this.toolAction(progress.action_instance_id).tool_call_id = progress.tool_call_id;
        break;
      case 'tool_action_settled':
        this.toolAction(progress.action_instance_id).settlement = progress.settlement;
        break;
      case 'invocation_closed': {
        const invocation = this.invocation(progress.invocation_action_instance_id, null);
        invocation.outcome = progress.outcome;
        invocation.recovered = progress.recovered;
        break;
      }
      case 'storage_failure':
        this.storageFailures.push(progress.reason);
        break;
      case 'scheduler_stopped':
        break;
    }
  }

  private invocation(id: string, tick: number | null): InvocationRun {
    let found = this.byId.get(id);
    if (found === undefined) {
      found = { invocation_action_instance_id: id, tick, outcome: null, recovered: false, tool_actions: [] };
      this.byId.set(id, found);
      this.invocations.push(found);
    }
    return found;
  }

  private toolAction(actionInstanceId: string): InvocationRun['tool_actions'][number] {
    const invocationId = actionInstanceId.slice(0, actionInstanceId.lastIndexOf(':tool='));
    const invocation = this.invocation(invocationId, null);
    let found = invocation.tool_actions.find((action) => action.action_instance_id === actionInstanceId);
    if (found === undefined) {
      found = { action_instance_id: actionInstanceId, tool_call_id: null, settlement: null };
      invocation.tool_actions.push(found);
    }
    return found;
  }
}

/**
 * The main job: recovers what an earlier run left, then advances the shared clock (N ticks, or until
 * every scheduler has stopped or used its attempts), with a progress line per step on `progress`.
 */
export const executeRun = async (options: RunOptions, progress: (line: string) => void): Promise<Built<RunSummary>> => {
  const inputs = await loadEngineInputs(options.scenarioPath, options.manifestPath);
  if (!inputs.ok) {
    return inputs.kind === 'unreadable'
      ? fail(EXIT_USAGE, inputs.message)
      : fail(EXIT_INVALID, `the scenario and manifest do not check; fix these (see \`raes-tools validate\`):\n${formatDiagnostics(inputs.diagnostics).trimEnd()}`);
  }
  if (options.participants !== undefined) {
    const known = new Set(inputs.compiled.policies.flatMap((policy) => policy.participantAddresses));
    const unknown = options.participants.filter((participant) => !known.has(participant));
    if (unknown.length > 0) {
      return fail(EXIT_USAGE, `--participant names no participant of the scenario: ${unknown.join(', ')} (its participants: ${[...known].join(', ')})`);
    }
  }
  const invalidEpisode = options.episode === undefined ? undefined : invalidEpisodeId(options.episode);
  if (invalidEpisode !== undefined) return fail(EXIT_USAGE, invalidEpisode);
  const opened = await openWorkspace(options, { durable: false, writer: 'raes-tools run', followsLog: true });
  if (!opened.ok) return fail(opened.usage ? EXIT_USAGE : EXIT_INVALID, opened.message);
  const workspace = opened.workspace;
  try {
    const unreachable = await unreachableStore(workspace);
    if (unreachable !== undefined) return fail(EXIT_INVALID, unreachable);
    const chosen = runEpisode(workspace, options.episode);
    if (!chosen.ok) return chosen;
    const episodeId = chosen.value;
    if (workspace.kind !== 'memory') {
      writeJob(workspace.dataDir, { scenario_path: options.scenarioPath, manifest_path: options.manifestPath, episode_id: episodeId });
    }

    if (options.participants !== undefined && workspace.kind !== 'postgres' && workspace.kind !== 'eventstoredb') {
      return fail(EXIT_USAGE, `--participant splits participants among engines sharing a server store (--store postgres or eventstoredb); the ${workspace.kind} store has one engine, which runs them all`);
    }
    const recorder = new RunRecorder();
    let harness: Awaited<ReturnType<typeof startHarness>>;
    try {
      harness = await startHarness(options.harness, {
        onCall: progress,
        bindings: inputs.compiled.affordanceBindings,
        ...(options.toolDelayMs === undefined ? {} : { toolDelayMs: options.toolDelayMs }),
      });
    } catch (error) {
      if (error instanceof HarnessStartFailed) return fail(error.exit, error.message);
      throw error;
    }
    // Started once the manager is; no port call is refused before that.
    let telemetry: LiveTelemetry | undefined;
    try {
      const built = buildManager({
        workspace,
        compiled: inputs.compiled,
        manifest: inputs.manifest,
        episodeId,
        runtime: harness.runtime,
        ...(harness.remotePorts === undefined ? {} : { remotePorts: harness.remotePorts }),
        ...(options.participants === undefined ? {} : { claims: new Set(options.participants) }),
        onProgress: (event) => {
          recorder.record(event);
          progress(describeProgress(event));
        },
        onRefusal: (refusal) => telemetry?.onRefusal(refusal),
      });
      if (!built.ok) return built;
      const manager = built.value;
      try {
        await manager.start();
        // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/observability.md).
        telemetry = await startLiveTelemetry(workspace.store, telemetryConfigOf(process.env));
        const from = manager.tick;
        const pairs = scheduledPairs(inputs.compiled);
        // No scheduler needs another tick once each has stopped or started all its attempts (the last
        // ones may still run: close() waits for them).
        const settled = (): boolean =>
          pairs.every((pair) => {
            const state = manager.schedulerStatus(pair.policyAddress, pair.participantAddress);
            return summarizeScheduler(pair, state).status !== 'running' || (state?.attemptsStarted ?? 0) >= pair.maxActionAttempts;
          });
        // Without --ticks, until idle: every policy's attempts fall due within start + cadence * attempts ticks.
        const bound =
          options.ticks ?? Math.max(0, ...pairs.map((pair) => pair.startTick + pair.cadenceTicks * pair.maxActionAttempts)) + 1;
        const end = from + bound;
        const interrupt = interruptible(progress);
        try {
          while (manager.tick < end && !interrupt.requested() && (options.ticks !== undefined || !settled())) {
            // Each due tick's attempts start, up to their policy's max_in_flight, while earlier ones still
            // run; the ticks between due ones are passed over at once (a start tick far ahead is reached
            // in one step, not one tick at a time).
            await manager.advance(Math.min(end, manager.nextDueTick() ?? end) - manager.tick, 'started');
          }
          // The last ticks' attempts, and any tick still waiting for a slot, run to their end.
          if (!interrupt.requested()) await manager.idle();
        } finally {
          interrupt.dispose();
        }
        await manager.close();
        await telemetry?.close();
        telemetry = undefined;
        let audit: AuditReport | undefined;
        if (options.audit === true || workspace.kind === 'memory') {
          // The run's history sealed first, as closing would: the audit then covers what a later reader finds.
          if (workspace.store instanceof ChainedEventStore) await workspace.store.seal();
          const report = await buildAuditReport(workspace, { episode: episodeId });
          if (!report.ok) return report;
          audit = report.value;
        }
        return {
          ok: true,
          value: {
            data_dir: workspace.dataDir,
            store: workspace.kind,
            episode_id: episodeId,
            harness: typeof options.harness === 'string' ? options.harness : harnessLabel(options.harness),
            ticks: { from: from + 1, to: manager.tick },
            invocations: recorder.invocations,
            schedulers: pairs.map((pair) => summarizeScheduler(pair, manager.schedulerStatus(pair.policyAddress, pair.participantAddress))),
            storage_failures: recorder.storageFailures,
            interrupted: interrupt.requested(),
            ...(audit === undefined ? {} : { audit }),
          },
        };
      } finally {
        await manager.close();
        await telemetry?.close();
      }
    } finally {
      await harness.close();
    }
  } finally {
    await workspace.close();
  }
};

const describeScheduler = (scheduler: SchedulerSummary): string => {
  const who = lastSegment(scheduler.participant_address);
  const attempts = `${scheduler.attempts_started} of ${scheduler.max_action_attempts} attempts started`;
  if (scheduler.status === 'stopped') {
    const unresolved = scheduler.unresolved_action_ids;
    const next =
      unresolved.length > 0
        ? `resolve ${unresolved.join(', ')} with \`raes-tools resolve <action id> --effect happened|absent --evidence <ref>\`, then \`raes-tools scheduler restart ${scheduler.participant_address}\``
        : `restart it with \`raes-tools scheduler restart ${scheduler.participant_address}\``;
    return `scheduler of ${who}: stopped (${scheduler.stopped_by?.reason ?? 'stopped'}), ${attempts}; ${next}`;
  }
  return `scheduler of ${who}: ${scheduler.status}, ${attempts}`;
};

export const formatRunSummary = (summary: RunSummary): string => {
  const rows = summary.invocations.flatMap((invocation) => {
    const label = invocationLabel(invocation.invocation_action_instance_id);
    const head = [label, invocation.tick === null ? '-' : String(invocation.tick), '', '', `${invocation.outcome ?? 'open'}${invocation.recovered ? ' (recovered)' : ''}`];
    return [
      head,
      ...invocation.tool_actions.map((action) => ['', '', toolTail(action.action_instance_id), action.tool_call_id === null ? '-' : shortToolCall(action.tool_call_id, invocation.invocation_action_instance_id), action.settlement ?? 'open']),
    ];
  });
  const settled = summary.invocations.flatMap((invocation) => invocation.tool_actions);
  const count = (settlement: string): number => settled.filter((action) => action.settlement === settlement).length;
  let text = `\nRun summary (episode ${summary.episode_id}, ${summary.store} store in ${summary.data_dir}, ${summary.harness} harness)\n`;
  text += summary.ticks.to < summary.ticks.from ? 'no tick ran\n' : `ticks ${summary.ticks.from} to ${summary.ticks.to}\n`;
  if (rows.length > 0) text += `\n${table(['invocation', 'tick', 'tool action', 'tool call', 'attempt / settlement'], rows)}`;
  text += `\n${plural(summary.invocations.length, 'invocation')}, ${plural(settled.length, 'tool action')}: ${count('completed')} completed, ${count('withheld')} withheld, ${count('indeterminate')} indeterminate\n`;
  for (const scheduler of summary.schedulers) text += `${describeScheduler(scheduler)}\n`;
  for (const failure of summary.storage_failures) text += `storage failure: ${failure}\n`;
  if (summary.interrupted) text += 'interrupted before the run was done: run it again to continue\n';
  if (summary.audit !== undefined) text += `\n${formatAudit(summary.audit)}`;
  return text;
};

const positiveInteger = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number >= 1 for ${name}, got '${value}'`);
  return n;
};

const nonNegativeInteger = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number >= 0 for ${name}, got '${value}'`);
  return n;
};

export const registerRun = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('run')
    .description('run a scenario on the shared logical clock through a harness (bundled, or your agent, module or command), with a progress display, and print a summary')
    .argument('<scenario>', 'scenario file (YAML)')
    .requiredOption('-m, --manifest <manifest>', 'backend manifest file (JSON)')
    .option('--ticks <n>', 'ticks to advance (default: until every scheduler has stopped or used its attempts)', positiveInteger('--ticks'))
    .option('--episode <id>', 'the episode to start or continue (default: the only one this data dir ran, else a fresh one); the store keeps each episode apart, beside the others')
    .option(
      '--participant <address...>',
      'on a server store shared by several engines: the participants this engine runs (default all that no other engine holds); it also takes over any whose engine died',
    )
    .addOption(
      new Option(
        '--harness <kind>',
        'scripted (examples/harness), mcp (examples/mcp), gateway:<config.json> (your agent command and MCP servers, through the engine\'s MCP gateway), module:<file> (your participant runtime module) or command:<command line> (your process per invocation, on the remote port)',
      )
        .argParser(parseHarnessSpec)
        .default({ kind: 'scripted' } as HarnessSpec, 'scripted'),
    )
    .option('--tool-delay-ms <ms>', 'scripted harness: how long each tool call runs', nonNegativeInteger('--tool-delay-ms'))
    .option('--json', 'print the summary as JSON');
  storeOptions(command)
    .addHelpText(
      'after',
      '\nA run first recovers what an interrupted run of its episode left (never another episode\'s), then continues the episode\'s schedulers.\nOne store holds many episodes: `run --episode E` starts E beside the others, or continues it; each episode\'s job is kept in <data dir>/jobs/E.json for the operator commands.\nOn PostgreSQL or EventStoreDB several engines (each with its own --data-dir) may share the store: each participant runs in the engine holding its lease in the store (RAES_LEASE_MS, default 15000); see docs/event-stores.md.\nProgress goes to stderr, the summary to stdout (with the audit on the memory store, which keeps nothing).\nCtrl-C stops before the next tick (twice: at once).\nExit codes: 0 ran, 1 the scenario or manifest does not check or the store failed, 2 usage error, 130 interrupted.',
    )
    .action(async (scenarioPath: string, opts: { manifest: string; ticks?: number; episode?: string; participant?: string[]; harness: HarnessSpec; toolDelayMs?: number; json?: boolean; store?: string; dataDir?: string }) => {
      const result = await executeRun(
        {
          scenarioPath,
          manifestPath: opts.manifest,
          harness: opts.harness,
          ...storeFlagsOf(opts),
          ...(opts.ticks === undefined ? {} : { ticks: opts.ticks }),
          ...(opts.episode === undefined ? {} : { episode: opts.episode }),
          ...(opts.participant === undefined ? {} : { participants: opts.participant }),
          ...(opts.toolDelayMs === undefined ? {} : { toolDelayMs: opts.toolDelayMs }),
        },
        (line) => io.stderr(`${line}\n`),
      );
      if (!result.ok) {
        io.stderr(`raes-tools run: ${result.message}\n`);
        return setExit(result.exit);
      }
      io.stdout(opts.json === true ? `${JSON.stringify(result.value, null, 2)}\n` : formatRunSummary(result.value));
      const failed = result.value.storage_failures.length > 0 || result.value.audit?.sound === false;
      setExit(result.value.interrupted ? EXIT_INTERRUPTED : failed ? EXIT_INVALID : EXIT_OK);
    });
};
