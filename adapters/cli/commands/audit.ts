import { Command } from 'commander';
import type { HistoryFilter, SchedulerStatus } from '../../../projections';
import { streamAudit, type AuditedInvocation, type AuditReport, type AuditSummary } from '../audit-report';
import { watchFileReplaced } from '../../files/file-replaced';
import { followAudit } from '../audit-follow';
import { letPagesDieYoung } from '../young-garbage';
import { formatIntegrity } from '../audit-integrity';
import { invocationLabel, lastSegment, plural, shortToolCall, shown, table, timeOfDay, toolTail } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import type { Built } from '../built';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';
import { EPISODE_HELP, episodesOf, knownEpisodes, pickEpisode, storeOfEpisodes } from '../episode-choice';
import type { Workspace } from '../workspace';
import type { PassViews } from '../audit-pass';

export const SOUND_SENTENCE =
  'every settled tool action has exactly its three history events, admission ordinals run 1, 2, 3... in each invocation, and each invocation\'s tool triples come immediately before its outer triple';

export const INTEGRITY_SENTENCE =
  'every chained event matches its chain link and links to the event before it in its stream, and every seal matches the history it covers (docs/integrity.md)';

const describeScheduler = (scheduler: SchedulerStatus): string[] => {
  const status = scheduler.status === 'stopped' ? `stopped (${scheduler.stopped_by?.reason ?? 'stopped'})` : 'running';
  return [lastSegment(scheduler.participant_address), lastSegment(scheduler.policy_address), status, String(scheduler.attempts_started), scheduler.unresolved_action_ids.map(toolTail).join(', ') || '-'];
};

/** The first line: the totals of what follows. */
export const formatAuditHeading = (summary: Pick<AuditSummary, 'filter' | 'history_events' | 'invocation_count' | 'tool_action_count'>): string => {
  const narrowed = Object.entries(summary.filter)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${String(value)}`);
  return `Tool history: ${plural(summary.invocation_count, 'closed invocation')}, ${plural(summary.tool_action_count, 'tool action')} (${plural(summary.history_events, 'history event')})${narrowed.length === 0 ? '' : `, ${narrowed.join(', ')}`}\n`;
};

/**
 * One closed invocation, as drawInvocation draws it. The audit reads stores that may have been changed
 * outside the engine: an invocation whose events hold values of other kinds (a number where the engine
 * writes text) is drawn with each such value as its JSON text, or, failing that, named in one line.
 */
export const formatAuditedInvocation = (invocation: AuditedInvocation): string => {
  try {
    return drawInvocation(invocation);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  try {
    return drawInvocation(withTexts(invocation) as AuditedInvocation);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return `\ninvocation ${shown(JSON.stringify(invocation.invocation_action_instance_id) ?? '?')}: its events hold values of other kinds than the engine writes (the store was changed); \`--json\` prints them\n`;
  }
};

/** A value with every number and boolean in it as its JSON text (null and absent values kept). */
const withTexts = (value: unknown): unknown => {
  if (value === null || value === undefined || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(withTexts);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withTexts(member)]));
  return JSON.stringify(value);
};

/** One closed invocation: its outer action, then its tool actions' table and resolutions. */
const drawInvocation = (invocation: AuditedInvocation): string => {
  const outer = invocation.outer_status === null ? 'no outer result (the invocation threw or was closed by recovery)' : invocation.outer_status;
  let text = `\n${invocationLabel(invocation.invocation_action_instance_id)}: invocation ${invocation.invocation_action_instance_id}\n`;
  text += `  participant ${invocation.participant_address}, episode ${invocation.episode_id}\n`;
  text += `  outer action ${lastSegment(invocation.action_contract_address)}: ${outer}, closed ${timeOfDay(invocation.closed_at)}\n`;
  if (invocation.tool_actions.length === 0) return `${text}  no tool action\n`;
  const rows = invocation.tool_actions.map((action) => [
    toolTail(action.action_instance_id),
    shortToolCall(action.tool_call_id, invocation.invocation_action_instance_id),
    lastSegment(action.tool_affordance_address),
    timeOfDay(action.admitted_at),
    timeOfDay(action.dispatched_at),
    timeOfDay(action.settled_at),
    action.settlement,
    action.status ?? '-',
  ]);
  text += table(['  action', 'tool call', 'tool', 'admitted', 'dispatched', 'settled', 'settlement', 'status'], rows.map((row) => [`  ${row[0]}`, ...row.slice(1)]));
  for (const action of invocation.tool_actions) {
    if (action.resolution !== null) {
      text += `  ${toolTail(action.action_instance_id)} resolved by an operator at ${timeOfDay(action.resolution.resolved_at)}: effect ${action.resolution.effect} (evidence ${shown(action.resolution.evidence_ref)})\n`;
    } else if (action.settlement === 'indeterminate') {
      text += `  ${toolTail(action.action_instance_id)} is unresolved: its effects are unknown; id ${action.action_instance_id}\n`;
    }
  }
  return text;
};

/** After the invocations: the open ones, the schedulers, the integrity and the verification. */
export const formatAuditEnding = (summary: Pick<AuditSummary, 'open_invocations' | 'schedulers' | 'integrity' | 'findings' | 'sound'>): string => {
  let text = '';
  if (summary.open_invocations.length > 0) {
    text += `\nOpen invocations (their history appears when they close; after a crash, \`raes-tools recover\` closes them):\n`;
    for (const id of summary.open_invocations) text += `  ${id}\n`;
  }
  if (summary.schedulers.length > 0) {
    text += `\nSchedulers\n${table(['participant', 'policy', 'status', 'attempts', 'unresolved'], summary.schedulers.map(describeScheduler))}`;
  }
  text += formatIntegrity(summary.integrity);
  if (summary.sound) {
    text += `\nVerification: sound, no findings: ${SOUND_SENTENCE}; ${INTEGRITY_SENTENCE}.\n`;
  } else {
    const findings = [...summary.integrity.findings, ...summary.findings];
    text += `\nVerification: ${plural(findings.length, 'finding')}\n`;
    for (const finding of findings) text += `  ${finding.code}: ${finding.message}\n`;
  }
  return text;
};

export const formatAudit = (report: AuditReport): string => {
  let text = formatAuditHeading({
    filter: report.filter,
    history_events: report.history_events,
    invocation_count: report.invocations.length,
    tool_action_count: report.invocations.reduce((n, invocation) => n + invocation.tool_actions.length, 0),
  });
  for (const invocation of report.invocations) text += formatAuditedInvocation(invocation);
  return text + formatAuditEnding(report);
};

/** Where the JSON report's invocations go; a string no JSON of the summary holds otherwise. */
const INVOCATIONS_SLOT = '\u0000invocations\u0000';

/**
 * The audit's JSON as `JSON.stringify(report, null, 2)` prints it, from the summary and the
 * invocations spooled one by one (each element indented as the array's member).
 */
const jsonAround = (summary: AuditSummary): { readonly before: string; readonly after: string } => {
  const shaped = {
    filter: summary.filter,
    integrity: summary.integrity,
    history_events: summary.history_events,
    invocations: INVOCATIONS_SLOT,
    open_invocations: summary.open_invocations,
    schedulers: summary.schedulers,
    findings: summary.findings,
    sound: summary.sound,
  };
  const text = JSON.stringify(shaped, null, 2);
  const slot = JSON.stringify(INVOCATIONS_SLOT);
  const at = text.indexOf(slot);
  return { before: text.slice(0, at), after: text.slice(at + slot.length) };
};

const jsonMember = (invocation: AuditedInvocation): string => `    ${JSON.stringify(invocation, null, 2).replace(/\n/g, '\n    ')}`;

export interface AuditOptions extends StoreFlags {
  readonly participant?: string;
  readonly episode?: string;
  readonly invocation?: string;
  readonly json: boolean;
  readonly follow?: boolean;
}

/** `--follow`: a line per settled tool action and closed invocation, until Ctrl-C (exit 0). */
const runAuditFollow = async (options: AuditOptions, io: CliIo): Promise<number> => {
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools audit: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  const filter = await followedFilter(opened.workspace, auditFilter(options));
  if (!filter.ok) {
    await opened.workspace.close();
    io.stderr(`raes-tools audit: ${filter.message}\n`);
    return filter.exit;
  }
  const follower = followAudit(opened.workspace.store, filter.value, io.stdout);
  const onSignal = (): void => void follower.stop();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The file read is the one opened: one removed or replaced under it (a data dir emptied and run again) is not followed on.
  let storeGone: string | undefined;
  const storeFile = opened.workspace.storeFile;
  const stopWatching =
    storeFile === undefined
      ? () => undefined
      : watchFileReplaced(storeFile, (how) => {
          storeGone = `the event store file ${storeFile} was ${how} while it was followed; run \`raes-tools audit --follow\` again to follow the store there now`;
          void follower.stop();
        });
  io.stderr('raes-tools audit: following the log; Ctrl-C stops\n');
  try {
    const ended = await follower.ended;
    if (storeGone !== undefined) {
      io.stderr(`raes-tools audit: ${storeGone}\n`);
      return EXIT_INVALID;
    }
    if (ended.kind === 'storage_failure') {
      io.stderr(`raes-tools audit: reading the event store failed: ${ended.reason}\n`);
      return EXIT_INVALID;
    }
    if (ended.kind === 'handler_failed') {
      io.stderr(`raes-tools audit: printing the followed log failed: ${String(ended.error)}\n`);
      return EXIT_INVALID;
    }
    return EXIT_OK;
  } finally {
    stopWatching();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await opened.workspace.close();
  }
};

export const runAudit = async (options: AuditOptions, io: CliIo): Promise<number> => {
  if (options.follow === true && options.json) {
    io.stderr('raes-tools audit: --follow prints lines for people; drop --json (or run audit without --follow)\n');
    return EXIT_USAGE;
  }
  if (options.follow === true) return runAuditFollow(options, io);
  letPagesDieYoung();
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools audit: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    // The views are caught up inside the audit's read of the log; the episode is picked from them after.
    const render = options.json ? jsonMember : formatAuditedInvocation;
    const audited = await streamAudit(opened.workspace, auditFilter(options), render, async (asked, views) => episodeFilter(opened.workspace, asked, views), true);
    if (!audited.ok) {
      io.stderr(`raes-tools audit: ${audited.message}\n`);
      return audited.exit;
    }
    const { summary, replay, dispose } = audited.value;
    try {
      const out = new ChunkedOutput(io.stdout);
      if (options.json) {
        const { before, after } = jsonAround(summary);
        if (summary.invocation_count === 0) {
          out.write(`${before}[]${after}\n`);
        } else {
          out.write(`${before}[\n`);
          let first = true;
          replay((member) => {
            out.write(first ? member : `,\n${member}`);
            first = false;
          });
          out.write(`\n  ]${after}\n`);
        }
      } else {
        out.write(formatAuditHeading(summary));
        replay((text) => out.write(text));
        out.write(formatAuditEnding(summary));
      }
      out.flush();
    } finally {
      dispose();
    }
    return summary.sound ? EXIT_OK : EXIT_INVALID;
  } finally {
    await opened.workspace.close();
  }
};

/** Text written in chunks of about 64 KiB: one write per chunk, not one per invocation. */
class ChunkedOutput {
  private pending = '';
  constructor(private readonly write_: (text: string) => void) {}

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= 1 << 16) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    this.write_(this.pending);
    this.pending = '';
  }
}

/**
 * The filter with its episode: the one asked for, else the only one the store holds (several: a usage
 * error). Audit verifies one episode at a time. Called once the audit caught the views up.
 */
const episodeFilter = async (workspace: Workspace, filter: HistoryFilter, views: PassViews = workspace.views): Promise<Built<HistoryFilter>> => {
  const picked = pickEpisode(filter.episode, knownEpisodes(workspace, views), storeOfEpisodes(workspace));
  if (!picked.ok) return picked;
  return { ok: true, value: picked.value === undefined ? filter : auditFilter({ ...filter, episode: picked.value }) };
};

/** The same for --follow, which reads the views before it follows: caught up first; when they cannot be, the filter stays as asked. */
const followedFilter = async (workspace: Workspace, filter: HistoryFilter): Promise<Built<HistoryFilter>> => {
  const known = await episodesOf(workspace);
  if (!known.ok) return { ok: true, value: filter };
  return episodeFilter(workspace, filter);
};

const auditFilter = (options: HistoryFilter): HistoryFilter => ({
  ...(options.participant === undefined ? {} : { participant: options.participant }),
  ...(options.episode === undefined ? {} : { episode: options.episode }),
  ...(options.invocation === undefined ? {} : { invocation: options.invocation }),
});

export const registerAudit = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('audit')
    .description('catch the projections up, print the tool history and verify it')
    .option('--participant <address>', 'only this participant (e.g. participant.behavior.participant-agent)')
    .option('--episode <id>', 'the episode to audit (default: the only one the store holds)')
    .option('--invocation <id>', 'only this invocation (its outer action instance id)')
    .option('--json', 'print the report as JSON')
    .option('--follow', 'read only: print each tool action as it settles and each invocation as it closes, from the log\'s start, until Ctrl-C');
  storeOptions(command)
    .addHelpText(
      'after',
      `\nAudit verifies one episode at a time. ${EPISODE_HELP}\nVerified: ${SOUND_SENTENCE}; ${INTEGRITY_SENTENCE}. The integrity covers the whole store. The first finding names the first event where the history breaks.\nExit codes: 0 sound, 1 findings, an unknown episode (or the store failed), 2 usage error.`,
    )
    .action(async (opts: { participant?: string; episode?: string; invocation?: string; json?: boolean; follow?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runAudit(
          {
            ...storeFlagsOf(opts),
            ...(opts.participant === undefined ? {} : { participant: opts.participant }),
            ...(opts.episode === undefined ? {} : { episode: opts.episode }),
            ...(opts.invocation === undefined ? {} : { invocation: opts.invocation }),
            ...(opts.follow === true ? { follow: true } : {}),
          },
          io,
        ),
      );
    });
};
