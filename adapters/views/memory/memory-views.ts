import type { ProjectionCheckpoint, ProjectionCheckpoints, ViewsPort } from '../../../domain/ports/views';
import type { SchedulerSnapshot } from '../../../domain/ports/open-invocations';
import type { AllProjectionViews } from '../../../projections';
import type {
  OpenInvocationFold,
  OpenInvocationRow,
  OpenInvocationsReads,
  OpenInvocationsViews,
  OpenInvocationsWrites,
} from '../../../projections/open-invocations';
import type { OperationRow, OperationsReads, OperationsWrites } from '../../../projections/operations/view';
import {
  matchesHistoryFilter,
  type HistoryFilter,
  type HistoryIndexRow,
  type OpenedFor,
  type ParticipantHistoryReads,
  type ParticipantHistoryWrites,
} from '../../../projections/participant-history/view';
import type { SchedulerSnapshotsReads, SchedulerSnapshotsViews, SchedulerSnapshotsWrites } from '../../../projections/scheduler-snapshots';
import { matchesSchedulerFilter, type SchedulerFilter, type SchedulerStatus, type SchedulersReads, type SchedulersWrites } from '../../../projections/schedulers/view';

/**
 * Everything the views hold, as plain data: a transaction copies it before its work and puts the copy
 * back when the work throws. Rows are copied on the way in and out, as a database would, so a caller
 * editing a row it read or wrote changes nothing stored.
 */
interface Tables {
  checkpoints: Map<string, ProjectionCheckpoint>;
  openInvocations: Map<string, { row: OpenInvocationRow; position: number }>;
  historyClosed: HistoryIndexRow[];
  historyOpened: Map<string, OpenedFor>;
  operations: Map<string, OperationRow>;
  schedulers: Map<string, { episodeId: string; status: SchedulerStatus }>;
  schedulerSnapshots: Map<string, SchedulerSnapshot>;
}

const emptyTables = (): Tables => ({
  checkpoints: new Map(),
  openInvocations: new Map(),
  historyClosed: [],
  historyOpened: new Map(),
  operations: new Map(),
  schedulers: new Map(),
  schedulerSnapshots: new Map(),
});

const copy = <T>(value: T): T => structuredClone(value);

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

class MemoryCheckpoints implements ProjectionCheckpoints {
  constructor(private readonly tables: () => Tables) {}
  read(name: string): ProjectionCheckpoint | undefined {
    const checkpoint = this.tables().checkpoints.get(name);
    return checkpoint === undefined ? undefined : { version: checkpoint.version, position: checkpoint.position };
  }
  write(name: string, checkpoint: ProjectionCheckpoint): void {
    this.tables().checkpoints.set(name, { version: checkpoint.version, position: checkpoint.position });
  }
  remove(name: string): void {
    this.tables().checkpoints.delete(name);
  }
}

class MemoryOpenInvocations implements OpenInvocationsWrites, OpenInvocationsReads {
  constructor(private readonly tables: () => Tables) {}
  setup(): void {}
  reset(): void {
    this.tables().openInvocations.clear();
  }
  open(row: OpenInvocationRow, position: number): void {
    this.tables().openInvocations.set(row.stream, { row: copy(row), position });
  }
  fold(stream: string): OpenInvocationFold | undefined {
    const kept = this.tables().openInvocations.get(stream);
    return kept === undefined ? undefined : { recovery: copy(kept.row.recovery), revision: kept.row.revision, link: kept.row.link };
  }
  updateFold(stream: string, fold: OpenInvocationFold): void {
    const kept = this.tables().openInvocations.get(stream);
    if (kept === undefined) return;
    kept.row = { ...kept.row, recovery: copy(fold.recovery), revision: fold.revision, link: fold.link };
  }
  close(stream: string): void {
    this.tables().openInvocations.delete(stream);
  }
  listOpen(): readonly OpenInvocationRow[] {
    return [...this.tables().openInvocations.values()].sort((a, b) => a.position - b.position).map((kept) => copy(kept.row));
  }
}

class MemoryParticipantHistory implements ParticipantHistoryWrites, ParticipantHistoryReads {
  constructor(private readonly tables: () => Tables) {}
  setup(): void {}
  reset(): void {
    const tables = this.tables();
    tables.historyClosed = [];
    tables.historyOpened.clear();
  }
  appendClosed(row: HistoryIndexRow): void {
    this.tables().historyClosed.push(copy(row));
  }
  keepOpened(stream: string, openedFor: OpenedFor): void {
    this.tables().historyOpened.set(stream, copy(openedFor));
  }
  opened(stream: string): OpenedFor | undefined {
    const openedFor = this.tables().historyOpened.get(stream);
    return openedFor === undefined ? undefined : copy(openedFor);
  }
  forgetOpened(stream: string): void {
    this.tables().historyOpened.delete(stream);
  }
  closedInvocations(filter: HistoryFilter): readonly HistoryIndexRow[] {
    return this.tables()
      .historyClosed.filter((row) => matchesHistoryFilter(row, filter))
      .map(copy);
  }
  eachClosedInvocation(filter: HistoryFilter): Iterable<HistoryIndexRow> {
    return this.closedInvocations(filter);
  }
}

/** The map key of an operation: its episode and its id (ids repeat across episodes). */
const operationKey = (episodeId: string, operationId: string): string => JSON.stringify([episodeId, operationId]);

class MemoryOperations implements OperationsWrites, OperationsReads {
  constructor(private readonly tables: () => Tables) {}
  setup(): void {}
  reset(): void {
    this.tables().operations.clear();
  }
  find(episodeId: string, operationId: string): OperationRow | undefined {
    return this.operation(episodeId, operationId);
  }
  insert(row: OperationRow): void {
    const operations = this.tables().operations;
    const key = operationKey(row.episode_id, row.operation_id);
    if (operations.has(key)) throw new Error(`operation '${row.operation_id}' of episode '${row.episode_id}' is already in the operations view`);
    operations.set(key, copy(row));
  }
  update(row: OperationRow): void {
    const operations = this.tables().operations;
    const key = operationKey(row.episode_id, row.operation_id);
    if (operations.has(key)) operations.set(key, copy(row));
  }
  operation(episodeId: string, operationId: string): OperationRow | undefined {
    const row = this.tables().operations.get(operationKey(episodeId, operationId));
    return row === undefined ? undefined : copy(row);
  }
  children(episodeId: string, parentOperationId: string): readonly OperationRow[] {
    return [...this.tables().operations.values()]
      .filter((row) => row.episode_id === episodeId && row.parent_operation_id === parentOperationId)
      .sort((a, b) => (a.admission_ordinal ?? -1) - (b.admission_ordinal ?? -1))
      .map(copy);
  }
}

class MemorySchedulers implements SchedulersWrites, SchedulersReads {
  constructor(private readonly tables: () => Tables) {}
  setup(): void {}
  reset(): void {
    this.tables().schedulers.clear();
  }
  status(stream: string): SchedulerStatus | undefined {
    const kept = this.tables().schedulers.get(stream);
    return kept === undefined ? undefined : copy(kept.status);
  }
  save(stream: string, episodeId: string, status: SchedulerStatus): void {
    this.tables().schedulers.set(stream, { episodeId, status: copy(status) });
  }
  list(filter: SchedulerFilter): readonly SchedulerStatus[] {
    return [...this.tables().schedulers.values()]
      .filter((kept) => matchesSchedulerFilter(kept.episodeId, kept.status, filter))
      .map((kept) => kept.status)
      .sort((a, b) => byText(a.participant_address, b.participant_address) || byText(a.policy_address, b.policy_address))
      .map(copy);
  }
  episodes(): readonly string[] {
    return [...new Set([...this.tables().schedulers.values()].map((kept) => kept.episodeId))];
  }
}

class MemorySchedulerSnapshots implements SchedulerSnapshotsWrites, SchedulerSnapshotsReads {
  constructor(private readonly tables: () => Tables) {}
  setup(): void {}
  reset(): void {
    this.tables().schedulerSnapshots.clear();
  }
  snapshot(stream: string): SchedulerSnapshot | undefined {
    const snapshot = this.tables().schedulerSnapshots.get(stream);
    return snapshot === undefined ? undefined : copy(snapshot);
  }
  save(stream: string, snapshot: SchedulerSnapshot): void {
    this.tables().schedulerSnapshots.set(stream, copy(snapshot));
  }
  all(): ReadonlyMap<string, SchedulerSnapshot> {
    return new Map([...this.tables().schedulerSnapshots].map(([stream, snapshot]) => [stream, copy(snapshot)]));
  }
}

/**
 * The views port kept in this process's memory: every projection's rows in plain maps, with
 * transactions that roll back. For embedding the engine where the views need not outlive the process,
 * and the second implementation that shows projections depend on the port, not on SQLite.
 */
export class MemoryViews implements ViewsPort, AllProjectionViews, OpenInvocationsViews, SchedulerSnapshotsViews {
  private tables = emptyTables();
  readonly checkpoints: MemoryCheckpoints;
  readonly openInvocations: MemoryOpenInvocations;
  readonly participantHistory: MemoryParticipantHistory;
  readonly operations: MemoryOperations;
  readonly schedulers: MemorySchedulers;
  readonly schedulerSnapshots: MemorySchedulerSnapshots;

  constructor() {
    const tables = (): Tables => this.tables;
    this.checkpoints = new MemoryCheckpoints(tables);
    this.openInvocations = new MemoryOpenInvocations(tables);
    this.participantHistory = new MemoryParticipantHistory(tables);
    this.operations = new MemoryOperations(tables);
    this.schedulers = new MemorySchedulers(tables);
    this.schedulerSnapshots = new MemorySchedulerSnapshots(tables);
  }

  transaction<T>(work: () => T): T {
    const before = copy(this.tables);
    try {
      return work();
    } catch (error) {
      this.tables = before;
      throw error;
    }
  }
}
