import type { RecordedEvent } from '../../domain/ports/event-store';
import type { OperationKind } from '../../domain/operations';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';
import { asInvocationEvent, asSchedulerEvent } from '../../domain/stored-events';
import { episodeOfStream } from '../../domain/streams';
import type { OperationRow, OperationsWrites } from './view';

/**
 * Operations (docs/rules.md, operations): each outer scheduler attempt is an operation (its id is the
 * outer action instance id), and each admitted tool action a child operation whose parent is that
 * outer one. A state only moves forward; events of the two aggregates may reach the view in either
 * order. Operation ids repeat across episodes (they come from the scenario's addresses), so a row is
 * keyed by its episode, read from the stream's name, and its id.
 */

export type OuterOperationState = 'scheduled' | 'opened' | 'dispatched' | 'settled';
export type ToolOperationState = 'admitted' | 'dispatched' | 'settled';

const RANK: Readonly<Record<string, number>> = { scheduled: 0, opened: 1, admitted: 1, dispatched: 2, settled: 3 };

/** The views this projection keeps its rows in. */
export interface OperationsViews {
  readonly operations: OperationsWrites;
}

const emptyRow = (episodeId: string, operationId: string, kind: OperationKind, at: string): OperationRow => ({
  operation_id: operationId,
  operation_kind: kind,
  parent_operation_id: null,
  participant_address: null,
  episode_id: episodeId,
  action_contract_address: null,
  state: kind === 'outer_action' ? 'scheduled' : 'admitted',
  settlement: null,
  settlement_reason: null,
  submitted_at: at,
  updated_at: at,
  tool_call_id: null,
  admission_ordinal: null,
  attempt_outcome: null,
  resolution_effect: null,
  resolution_evidence_ref: null,
  resolved_at: null,
});

/** An operation's row as the page has changed it, and whether the views already hold it. */
type PageRow = { readonly row: OperationRow; readonly stored: boolean };

/**
 * The rows the page in hand changed, by episode and operation id: an operation's events mostly come in
 * one page (a tool action's admission, dispatch and settlement), so each row is read once and written
 * once per page, not per event.
 */
const pageRows = new PageMemory<PageRow>();

/**
 * The operation's row for the page to edit: from the page, then from the views, or a new one; its
 * submission and update times already moved to take in `at`.
 */
const rowOf = (rows: OperationsWrites, episodeId: string, operationId: string, kind: OperationKind, at: string): OperationRow => {
  const page = pageRows.of(rows);
  // An episode id has no '/', so the key names one (episode, operation) pair.
  const key = `${episodeId}/${operationId}`;
  let held = page.get(key);
  if (held === undefined) {
    const stored = rows.find(episodeId, operationId);
    held = { row: stored ?? emptyRow(episodeId, operationId, kind, at), stored: stored !== undefined };
    page.set(key, held);
  }
  const row = held.row;
  if (at > row.updated_at) row.updated_at = at;
  if (at < row.submitted_at) row.submitted_at = at;
  return row;
};

/** Writes back what the page changed, inside the page's transaction. */
const endPage = (views: OperationsViews): void => {
  const rows = views.operations;
  const page = pageRows.take(rows);
  if (page === undefined) return;
  for (const { row, stored } of page.values()) {
    if (stored) rows.update(row);
    else rows.insert(row);
  }
};

const advance = (row: OperationRow, state: string): void => {
  if ((RANK[state] ?? 0) > (RANK[row.state] ?? 0)) row.state = state;
};

const applyInvocationEvent = (views: OperationsWrites, recorded: RecordedEvent): boolean => {
  const event = asInvocationEvent(recorded);
  if (event === undefined) return false;
  const episodeId = episodeOfStream(recorded.stream);
  if (episodeId === undefined) return true;
  switch (event.type) {
    case 'InvocationOpened': {
      const row = rowOf(views, episodeId, event.invocation_action_instance_id, 'outer_action', event.at);
      row.participant_address = event.port_values.participant_address;
      row.action_contract_address = event.outer_action.action_contract_address;
      advance(row, 'opened');
      break;
    }
    case 'InvocationActivated':
      advance(rowOf(views, episodeId, event.invocation_action_instance_id, 'outer_action', event.at), 'dispatched');
      break;
    case 'InvocationClosed': {
      const row = rowOf(views, episodeId, event.invocation_action_instance_id, 'outer_action', event.at);
      advance(row, 'settled');
      row.settlement = event.outcome;
      row.settlement_reason = event.outcome === 'invalid_result' ? event.reason : event.recovered ? 'recovered after a restart' : null;
      break;
    }
    case 'ToolActionAdmitted': {
      const row = rowOf(views, episodeId, event.action_instance_id, 'tool_action', event.at);
      row.parent_operation_id = event.invocation_action_instance_id;
      row.participant_address = event.request.participant_address;
      row.action_contract_address = event.request.action_contract_address;
      row.tool_call_id = event.tool_call_id;
      row.admission_ordinal = event.admission_ordinal;
      break;
    }
    case 'ToolActionDispatched':
      advance(rowOf(views, episodeId, event.action_instance_id, 'tool_action', event.at), 'dispatched');
      break;
    case 'ToolActionSettled': {
      const row = rowOf(views, episodeId, event.action_instance_id, 'tool_action', event.at);
      advance(row, 'settled');
      row.settlement = event.settlement;
      row.settlement_reason = event.settlement === 'completed' ? null : event.reason;
      break;
    }
    case 'ToolActionResolved': {
      const row = rowOf(views, episodeId, event.action_instance_id, 'tool_action', event.at);
      row.resolution_effect = event.effect;
      row.resolution_evidence_ref = event.evidence_ref;
      row.resolved_at = event.at;
      break;
    }
  }
  return true;
};

const applySchedulerEvent = (views: OperationsWrites, recorded: RecordedEvent): void => {
  const event = asSchedulerEvent(recorded);
  if (event === undefined) return;
  const episodeId = episodeOfStream(recorded.stream);
  if (episodeId === undefined) return;
  if (event.type === 'AttemptStarted') {
    const row = rowOf(views, episodeId, event.action_instance_id, 'outer_action', event.at);
    row.participant_address = event.participant_address;
    row.action_contract_address = event.action_contract_address;
  } else if (event.type === 'AttemptFinished') {
    rowOf(views, episodeId, event.action_instance_id, 'outer_action', event.at).attempt_outcome = event.outcome;
  }
};

export const operationsProjection: Projection<OperationsViews> = {
  name: 'operations',
  // 2: keyed by episode and operation id. 3: no index by parent (children are a range of the key).
  version: 3,
  setup(views) {
    views.operations.setup();
  },
  reset(views) {
    pageRows.forget(views.operations);
    views.operations.reset();
  },
  apply(views, event) {
    const rows = views.operations;
    if (!applyInvocationEvent(rows, event)) applySchedulerEvent(rows, event);
  },
  endPage,
  discardPending() {
    pageRows.clear();
  },
};

export type { OperationKind };
