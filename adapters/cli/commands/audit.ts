import { Command } from 'commander';
import type { SchedulerStatus } from '../../../projections';
import type { AuditReport } from '../audit-report';
import { buildAuditReport } from '../audit-report';
import { formatIntegrity } from '../audit-integrity';
import { invocationLabel, lastSegment, plural, shortToolCall, table, timeOfDay, toolTail } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';

export const SOUND_SENTENCE =
  'every settled tool action has exactly its three history events, admission ordinals run 1, 2, 3... in each invocation, and each invocation\'s tool triples come immediately before its outer triple';

export const INTEGRITY_SENTENCE =
  'every chained event matches its chain link and links to the event before it in its stream, and every seal matches the history it covers (docs/integrity.md)';

const describeScheduler = (scheduler: SchedulerStatus): string[] => {
  const status = scheduler.status === 'stopped' ? `stopped (${scheduler.stopped_by?.reason ?? 'stopped'})` : 'running';
  return [lastSegment(scheduler.participant_address), lastSegment(scheduler.policy_address), status, String(scheduler.attempts_started), scheduler.unresolved_action_ids.map(toolTail).join(', ') || '-'];
};

export const formatAudit = (report: AuditReport): string => {
  const tools = report.invocations.reduce((n, invocation) => n + invocation.tool_actions.length, 0);
  const narrowed = Object.entries(report.filter)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${String(value)}`);
  let text = `Tool history: ${plural(report.invocations.length, 'closed invocation')}, ${plural(tools, 'tool action')} (${plural(report.history_events, 'history event')})${narrowed.length === 0 ? '' : `, ${narrowed.join(', ')}`}\n`;
  for (const invocation of report.invocations) {
    const outer = invocation.outer_status === null ? 'no outer result (the invocation threw or was closed by recovery)' : invocation.outer_status;
    text += `\n${invocationLabel(invocation.invocation_action_instance_id)}: invocation ${invocation.invocation_action_instance_id}\n`;
    text += `  participant ${invocation.participant_address}, episode ${invocation.episode_id}\n`;
    text += `  outer action ${lastSegment(invocation.action_contract_address)}: ${outer}, closed ${timeOfDay(invocation.closed_at)}\n`;
    if (invocation.tool_actions.length === 0) {
      text += '  no tool action\n';
      continue;
    }
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
        text += `  ${toolTail(action.action_instance_id)} resolved by an operator at ${timeOfDay(action.resolution.resolved_at)}: effect ${action.resolution.effect} (evidence ${action.resolution.evidence_ref})\n`;
      } else if (action.settlement === 'indeterminate') {
        text += `  ${toolTail(action.action_instance_id)} is unresolved: its effects are unknown; id ${action.action_instance_id}\n`;
      }
    }
  }
  if (report.open_invocations.length > 0) {
    text += `\nOpen invocations (their history appears when they close; after a crash, \`raes-tools recover\` closes them):\n`;
    for (const id of report.open_invocations) text += `  ${id}\n`;
  }
  if (report.schedulers.length > 0) {
    text += `\nSchedulers\n${table(['participant', 'policy', 'status', 'attempts', 'unresolved'], report.schedulers.map(describeScheduler))}`;
  }
  text += formatIntegrity(report.integrity);
  if (report.sound) {
    text += `\nVerification: sound, no findings: ${SOUND_SENTENCE}; ${INTEGRITY_SENTENCE}.\n`;
  } else {
    const findings = [...report.integrity.findings, ...report.findings];
    text += `\nVerification: ${plural(findings.length, 'finding')}\n`;
    for (const finding of findings) text += `  ${finding.code}: ${finding.message}\n`;
  }
  return text;
};

export interface AuditOptions extends StoreFlags {
  readonly participant?: string;
  readonly episode?: string;
  readonly invocation?: string;
  readonly json: boolean;
}

export const runAudit = async (options: AuditOptions, io: CliIo): Promise<number> => {
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools audit: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    const report = await buildAuditReport(opened.workspace, {
      ...(options.participant === undefined ? {} : { participant: options.participant }),
      ...(options.episode === undefined ? {} : { episode: options.episode }),
      ...(options.invocation === undefined ? {} : { invocation: options.invocation }),
    });
    if (!report.ok) {
      io.stderr(`raes-tools audit: ${report.message}\n`);
      return report.exit;
    }
    io.stdout(options.json ? `${JSON.stringify(report.value, null, 2)}\n` : formatAudit(report.value));
    return report.value.sound ? EXIT_OK : EXIT_INVALID;
  } finally {
    await opened.workspace.close();
  }
};

export const registerAudit = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('audit')
    .description('catch the projections up, print the tool history and verify it')
    .option('--participant <address>', 'only this participant (e.g. participant.behavior.participant-agent)')
    .option('--episode <id>', 'only this episode')
    .option('--invocation <id>', 'only this invocation (its outer action instance id)')
    .option('--json', 'print the report as JSON');
  storeOptions(command)
    .addHelpText('after', `\nVerified: ${SOUND_SENTENCE}; ${INTEGRITY_SENTENCE}. The first finding names the first event where the history breaks.\nExit codes: 0 sound, 1 findings (or the store failed), 2 usage error.`)
    .action(async (opts: { participant?: string; episode?: string; invocation?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runAudit(
          {
            ...storeFlagsOf(opts),
            ...(opts.participant === undefined ? {} : { participant: opts.participant }),
            ...(opts.episode === undefined ? {} : { episode: opts.episode }),
            ...(opts.invocation === undefined ? {} : { invocation: opts.invocation }),
          },
          io,
        ),
      );
    });
};
