import type { Database, Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../domain/ports/event-store';
import { toolActionInstanceId } from '../../domain/addresses';
import {
  evolveInterrupted,
  initialInterruptedInvocation,
  type InterruptedInvocation,
  type InterruptedInvocationEvent,
  type InvocationOpened,
} from '../../domain/invocation';
import { INVOCATION_STREAM_PREFIX } from '../../domain/streams';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';

/**
 * An invocation is open from InvocationOpened until InvocationClosed; recovery after a crash closes
 * these. Each row also keeps what recovery decides from (the domain's interrupted-invocation fold:
 * unsettled tool actions and unresolved indeterminate ones) and the stream revision it reflects, so
 * recovery reads no invocation stream. Within a page the folds are kept in memory; each touched row is
 * written once at the end of the page, in the page's transaction.
 */
export interface OpenInvocationRow {
  readonly invocation_action_instance_id: string;
  readonly stream: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly opened_at: string;
  /** The interrupted-invocation fold of the stream up to `revision`. */
  readonly recovery: InterruptedInvocation;
  readonly revision: number;
}

const TABLE = 'open_invocations';

/** The stored text of a fold: its lists only (status, invocation id are the row's). */
interface StoredRecovery {
  readonly admitted: number;
  /** [action instance id, phase] in admission order. */
  readonly unsettled: readonly (readonly [string, 'admitted' | 'dispatched'])[];
  readonly unresolved: readonly string[];
}

const toStored = (fold: InterruptedInvocation): string =>
  fold.status === 'unopened'
    ? 'null'
    : JSON.stringify({
        admitted: fold.admitted,
        unsettled: fold.unsettled.map((action) => [action.actionInstanceId, action.phase]),
        unresolved: fold.unresolvedIndeterminate,
      } satisfies StoredRecovery);

const fromStored = (invocationId: string, text: string): InterruptedInvocation => {
  const stored = JSON.parse(text) as StoredRecovery;
  return {
    status: 'open',
    invocationId,
    admitted: stored.admitted,
    unsettled: stored.unsettled.map(([actionInstanceId, phase]) => ({ actionInstanceId, phase })),
    unresolvedIndeterminate: stored.unresolved,
  };
};

type Statements = {
  readonly insert: Statement<[string, string, string, string, string, string, number, number]>;
  readonly update: Statement<[number, string, string]>;
  readonly select: Statement<[string]>;
  readonly remove: Statement<[string]>;
};

type Fold = { recovery: InterruptedInvocation; revision: number };

const statementsByViews = new WeakMap<Database, Statements>();
/** Per views database, the open invocations touched during the page in hand. */
const pageFolds = new PageMemory<Fold>();

const statements = (views: Database): Statements => {
  let found = statementsByViews.get(views);
  if (found === undefined) {
    found = {
      insert: views.prepare(
        `INSERT OR REPLACE INTO ${TABLE} (invocation_action_instance_id, stream, participant_address, episode_id, opened_at, recovery, revision, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: views.prepare(`UPDATE ${TABLE} SET revision = ?, recovery = ? WHERE invocation_action_instance_id = ?`),
      select: views.prepare(`SELECT revision, recovery FROM ${TABLE} WHERE invocation_action_instance_id = ?`).raw(true),
      remove: views.prepare(`DELETE FROM ${TABLE} WHERE invocation_action_instance_id = ?`),
    };
    statementsByViews.set(views, found);
  }
  return found;
};

/** The invocation's fold: from this page's memory, else from its row; undefined when it is not open here. */
const foldOf = (views: Database, folds: Map<string, Fold>, invocationId: string): Fold | undefined => {
  const inMemory = folds.get(invocationId);
  if (inMemory !== undefined) return inMemory;
  const row = statements(views).select.get(invocationId) as [number, string] | undefined;
  if (row === undefined) return undefined;
  const fold = { recovery: fromStored(invocationId, row[1]), revision: row[0] };
  folds.set(invocationId, fold);
  return fold;
};

/**
 * The event as the fold reads it. An admission's id follows from the count of admissions before it
 * (`toolActionInstanceId`), so the largest event of an invocation is never parsed here.
 */
const foldEvent = (recorded: RecordedEvent, fold: InterruptedInvocation, invocationId: string): InterruptedInvocationEvent | undefined => {
  switch (recorded.type) {
    case 'ToolActionAdmitted':
      return fold.status === 'unopened' ? undefined : { type: 'ToolActionAdmitted', action_instance_id: toolActionInstanceId(invocationId, fold.admitted + 1) };
    case 'ToolActionDispatched':
    case 'ToolActionSettled':
    case 'ToolActionResolved':
      return recorded.data as unknown as InterruptedInvocationEvent;
    default:
      return undefined;
  }
};

const apply = (views: Database, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  if (!stream.startsWith(INVOCATION_STREAM_PREFIX)) return;
  const invocationId = stream.slice(INVOCATION_STREAM_PREFIX.length);
  const revision = Number(recorded.revision);
  const folds = pageFolds.of(views);
  if (recorded.type === 'InvocationOpened') {
    const opening = recorded.data as unknown as InvocationOpened;
    const recovery = evolveInterrupted(initialInterruptedInvocation(), opening);
    statements(views).insert.run(
      opening.invocation_action_instance_id,
      stream,
      opening.port_values.participant_address,
      opening.port_values.episode_id,
      opening.at,
      toStored(recovery),
      revision,
      Number(recorded.position),
    );
    folds.set(invocationId, { recovery, revision });
    return;
  }
  if (recorded.type === 'InvocationClosed') {
    folds.delete(invocationId);
    statements(views).remove.run(invocationId);
    return;
  }
  const fold = foldOf(views, folds, invocationId);
  // An invocation whose opening this view never saw, or one already closed (a late resolution).
  if (fold === undefined) return;
  const event = foldEvent(recorded, fold.recovery, invocationId);
  if (event !== undefined) fold.recovery = evolveInterrupted(fold.recovery, event);
  fold.revision = revision;
};

/** Writes each fold touched during the page to its row. */
const endPage = (views: Database): void => {
  const folds = pageFolds.take(views);
  if (folds === undefined) return;
  const update = statements(views).update;
  for (const [invocationId, fold] of folds) update.run(fold.revision, toStored(fold.recovery), invocationId);
};

export const openInvocationsProjection: Projection = {
  name: 'open-invocations',
  version: 2,
  setup(views) {
    views.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      invocation_action_instance_id TEXT PRIMARY KEY,
      stream TEXT NOT NULL,
      participant_address TEXT NOT NULL,
      episode_id TEXT NOT NULL,
      opened_at TEXT NOT NULL,
      recovery TEXT NOT NULL,
      revision INTEGER NOT NULL,
      position INTEGER NOT NULL
    )`);
  },
  reset(views) {
    statementsByViews.delete(views);
    pageFolds.forget(views);
    views.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  },
  apply,
  endPage,
  discardPending() {
    pageFolds.clear();
  },
};

/** Invocations opened and not yet closed, oldest first, with the fold recovery decides from. */
export const listOpenInvocations = (views: Database): readonly OpenInvocationRow[] => {
  const exists = views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLE);
  if (exists === undefined) return [];
  const rows = views
    .prepare(
      `SELECT invocation_action_instance_id, stream, participant_address, episode_id, opened_at, recovery, revision FROM ${TABLE} ORDER BY position`,
    )
    .raw(true)
    .all() as [string, string, string, string, string, string, number][];
  return rows.map(([invocationId, stream, participant, episode, openedAt, recovery, revision]) => ({
    invocation_action_instance_id: invocationId,
    stream,
    participant_address: participant,
    episode_id: episode,
    opened_at: openedAt,
    recovery: fromStored(invocationId, recovery),
    revision,
  }));
};
