import BetterSqlite3 from 'better-sqlite3';
import { SqliteOperations } from '../../../adapters/views/sqlite/operations';
import { toolActionInstanceId } from '../../../domain/addresses';
import type { OperationRow } from '../../../projections/operations/view';

const EPISODE = 'episode-0001';

const row = (operationId: string, parent: string | null, ordinal: number | null, episodeId = EPISODE): OperationRow => ({
  operation_id: operationId,
  operation_kind: parent === null ? 'outer_action' : 'tool_action',
  parent_operation_id: parent,
  participant_address: 'participant.behavior.prober',
  episode_id: episodeId,
  action_contract_address: null,
  state: parent === null ? 'scheduled' : 'admitted',
  settlement: null,
  settlement_reason: null,
  submitted_at: '2026-04-11T10:00:00.000Z',
  updated_at: '2026-04-11T10:00:00.000Z',
  tool_call_id: null,
  admission_ordinal: ordinal,
  attempt_outcome: null,
  resolution_effect: null,
  resolution_evidence_ref: null,
  resolved_at: null,
});

describe('the SQLite operations table', () => {
  const open = (): { db: BetterSqlite3.Database; operations: SqliteOperations } => {
    const db = new BetterSqlite3(':memory:');
    const operations = new SqliteOperations(db);
    operations.setup();
    return { db, operations };
  };

  it("lists an outer operation's tool actions by ordinal, and none of an outer operation whose id starts with its own", () => {
    const { db, operations } = open();
    // Attempt 1's id is a prefix of attempt 10's: a range of the key must not take 10's tool actions for 1's.
    const first = 'policy:participant:1';
    const tenth = 'policy:participant:10';
    for (const outer of [first, tenth]) operations.insert(row(outer, null, null));
    operations.insert(row(toolActionInstanceId(first, 2), first, 2));
    operations.insert(row(toolActionInstanceId(tenth, 1), tenth, 1));
    operations.insert(row(toolActionInstanceId(first, 1), first, 1));
    operations.insert(row(toolActionInstanceId(first, 1), first, 1, 'episode-0002'));
    expect(operations.children(EPISODE, first).map((child) => child.operation_id)).toEqual([toolActionInstanceId(first, 1), toolActionInstanceId(first, 2)]);
    expect(operations.children(EPISODE, tenth).map((child) => child.operation_id)).toEqual([toolActionInstanceId(tenth, 1)]);
    expect(operations.children('episode-0002', first)).toHaveLength(1);
    db.close();
  });

  it('keeps one index, its key, and finds the tool actions through it', () => {
    const { db } = open();
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'operations'").all();
    expect(indexes).toEqual([{ name: 'sqlite_autoindex_operations_1' }]);
    const plan = db
      .prepare('EXPLAIN QUERY PLAN SELECT * FROM operations WHERE episode_id = ? AND operation_id > ? AND operation_id < ? AND parent_operation_id = ? ORDER BY admission_ordinal')
      .all('e', 'a', 'b', 'a') as { detail: string }[];
    expect(plan.map((step) => step.detail).join('; ')).toContain('USING INDEX sqlite_autoindex_operations_1 (episode_id=? AND operation_id>? AND operation_id<?)');
    db.close();
  });
});
