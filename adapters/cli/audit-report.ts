import type { BehaviorHistoryEvent } from '../../domain/invocation';
import {
  ALL_PROJECTIONS,
  ProjectionRunner,
  openInvocationsProjection,
  participantHistoryProjection,
  schedulersProjection,
  type AllProjectionViews,
  type Projection,
  STORE_ADVICE,
  listOpenInvocations,
  listSchedulers,
  renderInvocationHistory,
  renderRecordedInvocationHistory,
  verifyHistory,
  type HistoryIndexRow,
  type AuditFinding,
  type CatchUpProgress,
  type HistoryFilter,
  type SchedulerStatus,
} from '../../projections';
import { invocationAggregate } from '../../domain/application';
import type { InvocationState, ToolActionRecord } from '../../domain/invocation';
import type { EventStore } from '../../domain/ports/event-store';
import { invocationStream, parseInvocationStream } from '../../domain/streams';
import { fail, type Built } from './built';
import { auditedInvocation, draftsOf, foldStream, resolutionOf, type AuditedInvocation, type AuditedToolAction, type FoldedInvocation } from './audited-invocation';

export type { AuditedInvocation, AuditedToolAction } from './audited-invocation';
import type { IntegrityReport } from '../../domain/integrity/verify';
import { adviceGivenIntegrity, changedHistoryAdvice, historyChangedNote } from './changed-history';
import { digestRows, passOverLog, type PassViews } from './audit-pass';
import { InvocationSpool, type RenderInvocation } from './invocation-spool';
import { EXIT_INVALID } from './io';
import type { Workspace } from './workspace';

/**
 * The audit: the projections caught up, the tool history they hold (who called which tool action in
 * which invocation, when it was admitted, dispatched and settled, how), and verifyHistory's findings.
 * The log is read once (audit-pass.ts): each invocation's history, dispatch times and operator
 * resolutions come from its events as they go by. A view that no longer matches the store is audited
 * from its rows, each stream read from the store, and fails the audit with what to do next.
 */

export interface AuditReport {
  readonly filter: HistoryFilter;
  /** The chains and seals of the whole store (docs/integrity.md), whatever the filter. */
  readonly integrity: IntegrityReport;
  readonly history_events: number;
  readonly invocations: readonly AuditedInvocation[];
  readonly open_invocations: readonly string[];
  readonly schedulers: readonly SchedulerStatus[];
  readonly findings: readonly AuditFinding[];
  readonly sound: boolean;
}

/** What the audit reads of the views: the closed invocations' index, the open ones, the schedulers (not the operations). */
const AUDITED_VIEWS: readonly Projection<AllProjectionViews>[] = [participantHistoryProjection, openInvocationsProjection, schedulersProjection];

/** Catches the projections up (every one unless named); a failure is a one-line message. */
export const catchUpViews = async (
  workspace: Workspace,
  onProgress?: (progress: CatchUpProgress) => void,
  projections: readonly Projection<AllProjectionViews>[] = ALL_PROJECTIONS,
): Promise<Built<ProjectionRunner>> => {
  const runner = new ProjectionRunner({ store: workspace.store, views: workspace.views, projections });
  const caught = await runner.catchUp(onProgress);
  if (caught.kind === 'storage_failure') return fail(EXIT_INVALID, `reading the event store failed: ${caught.reason}`);
  if (caught.kind === 'projection_failed') {
    // A rebuild repairs a damaged view, not a store whose history was changed under it.
    const changed = await changedHistoryAdvice(workspace.store);
    return fail(EXIT_INVALID, `${caught.reason}; ${changed ?? `rebuild it with \`raes-tools projections rebuild ${caught.projection}\``}`);
  }
  return { ok: true, value: runner };
};

/** A failure of the audit's other parts, with the integrity findings that may explain it. */
const failWithFindings = (message: string, integrity: IntegrityReport): Built<never> =>
  fail(EXIT_INVALID, integrity.findings.length === 0 ? message : `${message}\n${integrity.findings.map((finding) => `  ${finding.code}: ${finding.message}`).join('\n')}`);

/** The audit without its invocations: what a streamed audit knows once every invocation went by. */
export type AuditSummary = Omit<AuditReport, 'invocations'> & {
  readonly invocation_count: number;
  readonly tool_action_count: number;
};

/** A draft's invocation state: this stream's, or (for a history naming another invocation) its own stream's. */
const stateOf = async (store: EventStore, row: HistoryIndexRow, own: InvocationState, invocation: string): Promise<FoldedInvocation> => {
  if (invocation === row.invocation) return { kind: 'folded', state: own };
  const aggregate = invocationAggregate(store, row.episode, invocation);
  const loaded = await aggregate.load();
  return loaded.kind === 'unavailable' ? loaded : { kind: 'folded', state: aggregate.state };
};

/** Why the participant history cannot be rendered, and what to do. */
const cannotRenderMessage = (reason: string, advice: string): string => `the participant history cannot be rendered: ${reason}; ${advice}`;

type Walked =
  | {
      readonly kind: 'walked';
      readonly findings: readonly AuditFinding[];
      readonly historyEvents: number;
      readonly invocationCount: number;
      readonly toolActionCount: number;
    }
  | { readonly kind: 'history_unavailable'; readonly reason: string; readonly advice: string }
  | { readonly kind: 'unavailable'; readonly message: string };

/** Every view the projection writes names each invocation once: a stream closes once. */
const namesEachInvocationOnce = (rows: readonly HistoryIndexRow[]): boolean => {
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.invocation)) return false;
    seen.add(row.invocation);
  }
  return true;
};

const cannotRender = (reason: string, advice: string): Walked => ({ kind: 'history_unavailable', reason, advice });

/** One invocation at a time, each stream read once and let go. */
const walkInvocations = async (
  store: EventStore,
  rows: readonly HistoryIndexRow[],
  onInvocation: (invocation: AuditedInvocation) => void,
): Promise<Walked> => {
  const findings: AuditFinding[] = [];
  const invocationFindings: AuditFinding[] = [];
  let historyEvents = 0;
  let invocationCount = 0;
  let toolActionCount = 0;
  for (const row of rows) {
    const stream = invocationStream(row.episode, row.invocation);
    const read = await store.readStream(stream);
    if (read.kind !== 'read') return cannotRender(read.reason, STORE_ADVICE);
    const history = renderRecordedInvocationHistory(row, read.events);
    if ('kind' in history) return cannotRender(history.reason, history.advice);
    // verifyHistory lists the triples' findings before the invocations' ones: kept so across invocations.
    for (const finding of verifyHistory(history, historyEvents)) {
      (finding.code === 'triple_incomplete' || finding.code === 'triple_split' ? findings : invocationFindings).push(finding);
    }
    historyEvents += history.length;
    const drafts = draftsOf(history);
    if (drafts.length === 0) continue;
    const own = foldStream(stream, read.events);
    for (const draft of drafts) {
      const folded = own.kind === 'folded' ? await stateOf(store, row, own.state, draft.invocation) : own;
      if (folded.kind === 'unavailable') return { kind: 'unavailable', message: `reading invocation ${draft.invocation} failed: ${folded.reason}` };
      const audited = auditedInvocation(draft, folded.state);
      invocationCount += 1;
      toolActionCount += audited.tool_actions.length;
      onInvocation(audited);
    }
  }
  for (const finding of invocationFindings) findings.push(finding);
  return { kind: 'walked', findings, historyEvents, invocationCount, toolActionCount };
};

/** Some closed invocations (a live page's changed ones), each rendered and verified as the audit does. */
export const auditClosedInvocations = async (
  store: EventStore,
  rows: readonly HistoryIndexRow[],
): Promise<{ readonly ok: true; readonly invocations: readonly AuditedInvocation[]; readonly findings: readonly AuditFinding[] } | { readonly ok: false; readonly message: string }> => {
  const invocations: AuditedInvocation[] = [];
  const walked = await walkInvocations(store, rows, (invocation) => invocations.push(invocation));
  if (walked.kind === 'history_unavailable') return { ok: false, message: cannotRenderMessage(walked.reason, walked.advice) };
  if (walked.kind === 'unavailable') return { ok: false, message: walked.message };
  return { ok: true, invocations, findings: walked.findings };
};

/** The settlement column of an action not settled yet: where it stands. */
const openToolAction = (record: ToolActionRecord): AuditedToolAction => ({
  action_instance_id: record.actionInstanceId,
  admission_ordinal: record.admissionOrdinal,
  tool_call_id: record.toolCallId,
  tool_affordance_address: record.request.tool_affordance_address,
  action_contract_address: record.request.action_contract_address,
  admitted_at: record.admittedAt,
  dispatched_at: record.phase === 'admitted' ? null : record.dispatchedAt,
  settled_at: record.phase === 'settled' ? record.settledAt : null,
  settlement: record.phase === 'settled' ? record.settlement.kind : record.phase,
  status: record.phase === 'settled' && record.settlement.kind === 'completed' ? record.settlement.actionResult.status : null,
  resolution: resolutionOf(record),
});

/**
 * An invocation not closed yet, from its stream (it has no history): its tool actions so far, each
 * admitted, dispatched or settled. Undefined for a stream that holds no opening (or is no invocation's).
 */
export const auditOpenInvocation = async (store: EventStore, stream: string): Promise<AuditedInvocation | undefined | { readonly message: string }> => {
  const name = parseInvocationStream(stream);
  if (name === undefined) return undefined;
  const invocation = name.invocationActionInstanceId;
  const read = await store.readStream(stream);
  if (read.kind !== 'read') return { message: `reading invocation ${invocation} failed: ${read.reason}` };
  const folded = foldStream(stream, read.events);
  if (folded.kind === 'unavailable') return { message: `reading invocation ${invocation} failed: ${folded.reason}` };
  const state = folded.state;
  if (state.status !== 'opened') return undefined;
  return {
    invocation_action_instance_id: invocation,
    participant_address: state.portValues.participant_address,
    episode_id: state.portValues.episode_id,
    action_contract_address: state.outerAction.action_contract_address,
    outer_status: null,
    closed_at: state.lifecycle.status === 'closed' ? state.lifecycle.closedAt : null,
    tool_actions: state.toolActions.map(openToolAction),
  };
};

/**
 * A damaged view that names an invocation more than once: its histories are verified and merged as
 * one list, as the rules read a history, so that the findings say what the damage looks like.
 */
const walkWholeHistory = async (
  store: EventStore,
  rows: readonly HistoryIndexRow[],
  onInvocation: (invocation: AuditedInvocation) => void,
): Promise<Walked> => {
  const history: BehaviorHistoryEvent[] = [];
  for (const row of rows) {
    const rendered = await renderInvocationHistory(store, row);
    if ('kind' in rendered) return cannotRender(rendered.reason, rendered.advice);
    for (const event of rendered) history.push(event);
  }
  let invocationCount = 0;
  let toolActionCount = 0;
  for (const draft of draftsOf(history)) {
    const aggregate = invocationAggregate(store, draft.episode, draft.invocation);
    const loaded = await aggregate.load();
    if (loaded.kind === 'unavailable') return { kind: 'unavailable', message: `reading invocation ${draft.invocation} failed: ${loaded.reason}` };
    const audited = auditedInvocation(draft, aggregate.state);
    invocationCount += 1;
    toolActionCount += audited.tool_actions.length;
    onInvocation(audited);
  }
  return { kind: 'walked', findings: verifyHistory(history), historyEvents: history.length, invocationCount, toolActionCount };
};

/** The audit's summary, and its invocations to hand over once, in order, from the file they wait in. */
export interface StreamedAudit {
  readonly summary: AuditSummary;
  /** Hands every audited invocation's text (as `render` wrote it) to `onText`, in the order the history lists them; once. */
  replay(onText: (text: string) => void): void;
  /** Removes the file the invocations waited in. */
  dispose(): void;
}

/**
 * The audit over one read of the log (audit-pass.ts): the integrity check, the views the audit reads
 * caught up, and every closed invocation rendered, verified and spooled as it closes. `choose` turns the
 * filter into the one audited once the views are caught up (the audit picks the store's only episode
 * from the schedulers in `views`);
 * `render` writes each invocation as the caller prints it.
 * The invocations come from the pass when the participant history view lists exactly the invocations
 * the pass saw close, in that order; otherwise (a damaged or foreign view) they are rendered from the
 * view's rows, each stream read from the store, so that the findings say what the damage looks like.
 */
export const streamAudit = async (
  workspace: Workspace,
  asked: HistoryFilter,
  render: RenderInvocation,
  choose: (asked: HistoryFilter, views: PassViews) => Promise<Built<HistoryFilter>> = async (filter) => ({ ok: true, value: filter }),
  /** Whether the caller reads the open invocations and schedulers only from this audit, so that a cold start may fold them in memory. */
  foldInMemory = false,
): Promise<Built<StreamedAudit>> => {
  const pass = await passOverLog(workspace, AUDITED_VIEWS, asked, render, foldInMemory);
  let spool: InvocationSpool | undefined = pass.spool;
  try {
    const integrity = pass.integrity;
    const caught = pass.caught;
    if (caught.kind === 'storage_failure') return fail(EXIT_INVALID, `reading the event store failed: ${caught.reason}`);
    if (caught.kind === 'projection_failed') {
      return failWithFindings(`${caught.reason}; rebuild it with \`raes-tools projections rebuild ${caught.projection}\``, integrity);
    }
    const chosen = await choose(asked, pass.views);
    if (!chosen.ok) return chosen;
    const filter = chosen.value;
    const history = pass.views.participantHistory;
    const episode = filter.episode;
    const fromPass =
      pass.usable && (episode === undefined || [...pass.episodes].every((seen) => seen === episode)) && digestRows(history.eachClosedInvocation(filter)) === pass.rowsDigest;
    let findings = pass.findings;
    let historyEvents = pass.historyEvents;
    let toolActionCount = pass.toolActionCount;
    if (!fromPass) {
      spool.dispose();
      spool = new InvocationSpool(render);
      const into = spool;
      const rows = history.closedInvocations(filter);
      const store = workspace.store;
      const walked = namesEachInvocationOnce(rows)
        ? await walkInvocations(store, rows, (invocation) => into.add(invocation))
        : await walkWholeHistory(store, rows, (invocation) => into.add(invocation));
      if (walked.kind === 'history_unavailable') {
        return failWithFindings(cannotRenderMessage(walked.reason, adviceGivenIntegrity(walked.advice, integrity)), integrity);
      }
      if (walked.kind === 'unavailable') {
        // An invocation that cannot be read where the chains break was changed, not merely damaged.
        const changed = historyChangedNote(integrity);
        return failWithFindings(changed === undefined ? walked.message : `${walked.message}; ${changed}`, integrity);
      }
      ({ findings, historyEvents, toolActionCount } = walked);
    }
    const open = listOpenInvocations(pass.views)
      .filter(
        (row) =>
          (filter.participant === undefined || row.participant_address === filter.participant) &&
          (filter.episode === undefined || row.episode_id === filter.episode) &&
          (filter.invocation === undefined || row.invocation_action_instance_id === filter.invocation),
      )
      .map((row) => row.invocation_action_instance_id);
    const summary: AuditSummary = {
      filter,
      integrity,
      history_events: historyEvents,
      invocation_count: spool.count,
      tool_action_count: toolActionCount,
      open_invocations: open,
      schedulers: listSchedulers(pass.views, {
        ...(filter.episode === undefined ? {} : { episode: filter.episode }),
        ...(filter.participant === undefined ? {} : { participant: filter.participant }),
      }),
      findings,
      sound: findings.length === 0 && integrity.findings.length === 0,
    };
    const handed = spool;
    spool = undefined;
    return { ok: true, value: { summary, replay: (onText) => handed.replay(onText), dispose: () => handed.dispose() } };
  } finally {
    spool?.dispose();
  }
};

/** The audit, its invocations handed to `onInvocation` in order once the summary is known. */
export const walkAudit = async (
  workspace: Workspace,
  filter: HistoryFilter,
  onInvocation: (invocation: AuditedInvocation) => void,
): Promise<Built<AuditSummary>> => {
  const streamed = await streamAudit(workspace, filter, (invocation) => JSON.stringify(invocation));
  if (!streamed.ok) return streamed;
  try {
    streamed.value.replay((text) => onInvocation(JSON.parse(text) as AuditedInvocation));
    return { ok: true, value: streamed.value.summary };
  } finally {
    streamed.value.dispose();
  }
};

/** The whole audit in memory, for callers that keep it (the embedding facade, `run`'s summary). */
export const buildAuditReport = async (workspace: Workspace, filter: HistoryFilter): Promise<Built<AuditReport>> => {
  const invocations: AuditedInvocation[] = [];
  const walked = await walkAudit(workspace, filter, (invocation) => invocations.push(invocation));
  if (!walked.ok) return walked;
  const summary = walked.value;
  return {
    ok: true,
    value: {
      filter: summary.filter,
      integrity: summary.integrity,
      history_events: summary.history_events,
      invocations,
      open_invocations: summary.open_invocations,
      schedulers: summary.schedulers,
      findings: summary.findings,
      sound: summary.sound,
    },
  };
};
