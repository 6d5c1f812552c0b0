import type { BehaviorHistoryEvent } from '../../domain/invocation';
import {
  ALL_PROJECTIONS,
  ProjectionRunner,
  listOpenInvocations,
  listSchedulers,
  storedHistory,
  verifyHistory,
  type AuditFinding,
  type CatchUpProgress,
  type HistoryFilter,
  type SchedulerStatus,
} from '../../projections';
import { invocationAggregate } from '../../domain/application';
import { fail, type Built } from './engine';
import type { IntegrityReport } from '../../domain/integrity/verify';
import { auditIntegrity } from './audit-integrity';
import { EXIT_INVALID } from './io';
import type { Workspace } from './workspace';

/**
 * The audit: the projections caught up, the tool history they hold (who called which tool action in
 * which invocation, when it was admitted, dispatched and settled, how), and verifyHistory's findings.
 * The history is rendered from the invocations' streams; dispatch times and operator resolutions are
 * read from each invocation's own stream too. A view that no longer matches the store fails the audit
 * with what to do next.
 */

export interface AuditedToolAction {
  readonly action_instance_id: string;
  readonly admission_ordinal: number;
  readonly tool_call_id: string;
  readonly tool_affordance_address: string;
  readonly action_contract_address: string;
  readonly admitted_at: string;
  readonly dispatched_at: string | null;
  readonly settled_at: string | null;
  readonly settlement: string;
  readonly status: string | null;
  readonly resolution: { readonly effect: string; readonly evidence_ref: string; readonly resolved_at: string } | null;
}

export interface AuditedInvocation {
  readonly invocation_action_instance_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_contract_address: string;
  /** The outer action's recorded status; null when the invocation threw or was closed by recovery (no outer triple). */
  readonly outer_status: string | null;
  readonly closed_at: string | null;
  readonly tool_actions: readonly AuditedToolAction[];
}

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

/** Catches every projection up; a failure is a one-line message. */
export const catchUpViews = async (workspace: Workspace, onProgress?: (progress: CatchUpProgress) => void): Promise<Built<ProjectionRunner>> => {
  const runner = new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: ALL_PROJECTIONS });
  const caught = await runner.catchUp(onProgress);
  if (caught.kind === 'storage_failure') return fail(EXIT_INVALID, `reading the event store failed: ${caught.reason}`);
  if (caught.kind === 'projection_failed') {
    return fail(EXIT_INVALID, `${caught.reason}; rebuild it with \`raes-tools projections rebuild ${caught.projection}\``);
  }
  return { ok: true, value: runner };
};

type Draft = {
  invocation: string;
  participant: string;
  episode: string;
  contract: string;
  outerStatus: string | null;
  closedAt: string | null;
  tools: Map<string, { first: BehaviorHistoryEvent; settledAt: string | null; status: string | null }>;
};

const draftsOf = (history: readonly BehaviorHistoryEvent[]): Draft[] => {
  const drafts = new Map<string, Draft>();
  for (const event of history) {
    const context = event.invocation_tool_context;
    const invocationId = context?.invocation_action_instance_id ?? event.action_instance_id;
    let draft = drafts.get(invocationId);
    if (draft === undefined) {
      draft = {
        invocation: invocationId,
        participant: event.participant_address,
        episode: event.episode_id,
        contract: context?.invocation_action_contract_address ?? event.action_contract_address,
        outerStatus: null,
        closedAt: null,
        tools: new Map(),
      };
      drafts.set(invocationId, draft);
    }
    if (context === undefined) {
      if (event.event_type === 'observation_emitted') {
        draft.outerStatus = event.action_result?.status ?? null;
        draft.closedAt = event.timestamp;
      }
      continue;
    }
    let tool = draft.tools.get(event.action_instance_id);
    if (tool === undefined) {
      tool = { first: event, settledAt: null, status: null };
      draft.tools.set(event.action_instance_id, tool);
    }
    if (event.event_type === 'observation_emitted') {
      tool.settledAt = event.timestamp;
      tool.status = event.action_result?.status ?? null;
    }
  }
  return [...drafts.values()];
};

/** A failure of the audit's other parts, with the integrity findings that may explain it. */
const failWithFindings = (message: string, integrity: IntegrityReport): Built<never> =>
  fail(EXIT_INVALID, integrity.findings.length === 0 ? message : `${message}\n${integrity.findings.map((finding) => `  ${finding.code}: ${finding.message}`).join('\n')}`);

export const buildAuditReport = async (workspace: Workspace, filter: HistoryFilter): Promise<Built<AuditReport>> => {
  // First, over the store as it is: tampering may be what keeps the views from catching up.
  const integrity = await auditIntegrity(workspace.store);
  if ('kind' in integrity) return fail(EXIT_INVALID, `reading the event store failed: ${integrity.reason}`);
  const caught = await catchUpViews(workspace);
  if (!caught.ok) return failWithFindings(caught.message, integrity);
  const rendered = await storedHistory(workspace.views, workspace.store, filter);
  if (rendered.kind === 'history_unavailable') {
    return failWithFindings(`the participant history cannot be rendered: ${rendered.reason}; ${rendered.advice}`, integrity);
  }
  const history = rendered.events;
  const invocations: AuditedInvocation[] = [];
  for (const draft of draftsOf(history)) {
    const aggregate = invocationAggregate(workspace.store, draft.invocation);
    const loaded = await aggregate.load();
    if (loaded.kind === 'unavailable') return fail(EXIT_INVALID, `reading invocation ${draft.invocation} failed: ${loaded.reason}`);
    const state = aggregate.state;
    const tools: AuditedToolAction[] = [];
    for (const [actionId, tool] of draft.tools) {
      const context = tool.first.invocation_tool_context!;
      const position = state.status === 'opened' ? state.positionByActionId.get(actionId) : undefined;
      const record = position === undefined || state.status !== 'opened' ? undefined : state.toolActions[position];
      const dispatchedAt = record === undefined || record.phase === 'admitted' ? null : record.dispatchedAt;
      const resolution = record?.phase === 'settled' ? record.resolution : null;
      tools.push({
        action_instance_id: actionId,
        admission_ordinal: context.admission_ordinal,
        tool_call_id: context.tool_call_id,
        tool_affordance_address: context.tool_affordance_address,
        action_contract_address: tool.first.action_contract_address,
        admitted_at: tool.first.timestamp,
        dispatched_at: dispatchedAt,
        settled_at: tool.settledAt,
        settlement: context.settlement,
        status: tool.status,
        resolution:
          resolution === null ? null : { effect: resolution.effect, evidence_ref: resolution.evidenceRef, resolved_at: resolution.resolvedAt },
      });
    }
    invocations.push({
      invocation_action_instance_id: draft.invocation,
      participant_address: draft.participant,
      episode_id: draft.episode,
      action_contract_address: draft.contract,
      outer_status: draft.outerStatus,
      closed_at: draft.closedAt ?? (state.status === 'opened' && state.lifecycle.status === 'closed' ? state.lifecycle.closedAt : null),
      tool_actions: tools,
    });
  }
  const open = listOpenInvocations(workspace.views)
    .filter(
      (row) =>
        (filter.participant === undefined || row.participant_address === filter.participant) &&
        (filter.episode === undefined || row.episode_id === filter.episode) &&
        (filter.invocation === undefined || row.invocation_action_instance_id === filter.invocation),
    )
    .map((row) => row.invocation_action_instance_id);
  const findings = verifyHistory(history);
  return {
    ok: true,
    value: {
      filter,
      integrity,
      history_events: history.length,
      invocations,
      open_invocations: open,
      schedulers: listSchedulers(workspace.views, filter.participant),
      findings,
      sound: findings.length === 0 && integrity.findings.length === 0,
    },
  };
};
