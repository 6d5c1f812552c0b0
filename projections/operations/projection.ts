import type { Database, Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../domain/ports/event-store';
import type { OperationKind } from '../../domain/operations';
import type { Projection } from '../runner';
import { asInvocationEvent, asSchedulerEvent } from '../../domain/stored-events';

/**
 * Operations (docs/rules.md, operations): each outer scheduler attempt is an operation (its id is the outer
 * action instance id), and each admitted tool action a child operation whose parent is that outer one.
 * A state only moves forward; events of the two aggregates may reach the view in either order.
 */

export const OPERATIONS_TABLE = 'operations';

export type OuterOperationState = 'scheduled' | 'opened' | 'dispatched' | 'settled';
export type ToolOperationState = 'admitted' | 'dispatched' | 'settled';

const RANK: Readonly<Record<string, number>> = { scheduled: 0, opened: 1, admitted: 1, dispatched: 2, settled: 3 };

type Statements = {
  readonly select: Statement<[string]>;
  readonly insert: Statement<Record<string, unknown>>;
  readonly update: Statement<Record<string, unknown>>;
};

const COLUMNS = [
  'operation_id',
  'operation_kind',
  'parent_operation_id',
  'participant_address',
  'episode_id',
  'action_contract_address',
  'state',
  'settlement',
  'settlement_reason',
  'submitted_at',
  'updated_at',
  'tool_call_id',
  'admission_ordinal',
  'attempt_outcome',
  'resolution_effect',
  'resolution_evidence_ref',
  'resolved_at',
] as const;

export type OperationRow = { -readonly [K in (typeof COLUMNS)[number]]: K extends 'admission_ordinal' ? number | null : string | null };

const byViews = new WeakMap<Database, Statements>();

const statements = (views: Database): Statements => {
  let found = byViews.get(views);
  if (found === undefined) {
    found = {
      select: views.prepare(`SELECT * FROM ${OPERATIONS_TABLE} WHERE operation_id = ?`),
      insert: views.prepare(`INSERT INTO ${OPERATIONS_TABLE} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`),
      update: views.prepare(
        `UPDATE ${OPERATIONS_TABLE} SET ${COLUMNS.filter((c) => c !== 'operation_id').map((c) => `${c} = @${c}`).join(', ')} WHERE operation_id = @operation_id`,
      ),
    };
    byViews.set(views, found);
  }
  return found;
};

const emptyRow = (operationId: string, kind: OperationKind, at: string): OperationRow => ({
  operation_id: operationId,
  operation_kind: kind,
  parent_operation_id: null,
  participant_address: null,
  episode_id: null,
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

/** Reads the row (or starts one), lets `change` edit it, and writes it back. */
const upsert = (views: Database, operationId: string, kind: OperationKind, at: string, change: (row: OperationRow) => void): void => {
  const s = statements(views);
  const stored = s.select.get(operationId) as OperationRow | undefined;
  const row = stored ?? emptyRow(operationId, kind, at);
  change(row);
  if (at > (row.updated_at ?? '')) row.updated_at = at;
  if (at < (row.submitted_at ?? at)) row.submitted_at = at;
  (stored === undefined ? s.insert : s.update).run(row);
};

const advance = (row: OperationRow, state: string): void => {
  if ((RANK[state] ?? 0) > (RANK[row.state ?? ''] ?? 0)) row.state = state;
};

const applyInvocationEvent = (views: Database, recorded: RecordedEvent): boolean => {
  const event = asInvocationEvent(recorded);
  if (event === undefined) return false;
  switch (event.type) {
    case 'InvocationOpened':
      upsert(views, event.invocation_action_instance_id, 'outer_action', event.at, (row) => {
        row.participant_address = event.port_values.participant_address;
        row.episode_id = event.port_values.episode_id;
        row.action_contract_address = event.outer_action.action_contract_address;
        advance(row, 'opened');
      });
      break;
    case 'InvocationActivated':
      upsert(views, event.invocation_action_instance_id, 'outer_action', event.at, (row) => advance(row, 'dispatched'));
      break;
    case 'InvocationClosed':
      upsert(views, event.invocation_action_instance_id, 'outer_action', event.at, (row) => {
        advance(row, 'settled');
        row.settlement = event.outcome;
        row.settlement_reason = event.outcome === 'invalid_result' ? event.reason : event.recovered ? 'recovered after a restart' : null;
      });
      break;
    case 'ToolActionAdmitted':
      upsert(views, event.action_instance_id, 'tool_action', event.at, (row) => {
        row.parent_operation_id = event.invocation_action_instance_id;
        row.participant_address = event.request.participant_address;
        row.episode_id = event.request.episode_id;
        row.action_contract_address = event.request.action_contract_address;
        row.tool_call_id = event.tool_call_id;
        row.admission_ordinal = event.admission_ordinal;
      });
      break;
    case 'ToolActionDispatched':
      upsert(views, event.action_instance_id, 'tool_action', event.at, (row) => advance(row, 'dispatched'));
      break;
    case 'ToolActionSettled':
      upsert(views, event.action_instance_id, 'tool_action', event.at, (row) => {
        advance(row, 'settled');
        row.settlement = event.settlement;
        row.settlement_reason = event.settlement === 'completed' ? null : event.reason;
      });
      break;
    case 'ToolActionResolved':
      upsert(views, event.action_instance_id, 'tool_action', event.at, (row) => {
        row.resolution_effect = event.effect;
        row.resolution_evidence_ref = event.evidence_ref;
        row.resolved_at = event.at;
      });
      break;
  }
  return true;
};

const applySchedulerEvent = (views: Database, recorded: RecordedEvent): void => {
  const event = asSchedulerEvent(recorded);
  if (event === undefined) return;
  if (event.type === 'AttemptStarted') {
    upsert(views, event.action_instance_id, 'outer_action', event.at, (row) => {
      row.participant_address = event.participant_address;
      row.action_contract_address = event.action_contract_address;
    });
  } else if (event.type === 'AttemptFinished') {
    upsert(views, event.action_instance_id, 'outer_action', event.at, (row) => {
      row.attempt_outcome = event.outcome;
    });
  }
};

export const operationsProjection: Projection = {
  name: 'operations',
  version: 1,
  setup(views) {
    views.exec(`
      CREATE TABLE IF NOT EXISTS ${OPERATIONS_TABLE} (
        operation_id TEXT PRIMARY KEY,
        operation_kind TEXT NOT NULL,
        parent_operation_id TEXT,
        participant_address TEXT,
        episode_id TEXT,
        action_contract_address TEXT,
        state TEXT NOT NULL,
        settlement TEXT,
        settlement_reason TEXT,
        submitted_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        tool_call_id TEXT,
        admission_ordinal INTEGER,
        attempt_outcome TEXT,
        resolution_effect TEXT,
        resolution_evidence_ref TEXT,
        resolved_at TEXT
      );
      CREATE INDEX IF NOT EXISTS ${OPERATIONS_TABLE}_by_parent ON ${OPERATIONS_TABLE} (parent_operation_id, admission_ordinal);
    `);
  },
  reset(views) {
    byViews.delete(views);
    views.exec(`DROP TABLE IF EXISTS ${OPERATIONS_TABLE}`);
  },
  apply(views, event) {
    if (!applyInvocationEvent(views, event)) applySchedulerEvent(views, event);
  },
};

export type { OperationKind };
