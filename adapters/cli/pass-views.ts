import { InMemoryOpenInvocations } from '../views/open-invocations-in-memory';
import { matchesHistoryFilter, type HistoryFilter, type HistoryIndexRow, type OpenedFor, type ParticipantHistoryReads, type ParticipantHistoryWrites } from '../../projections/participant-history/view';
import { matchesSchedulerFilter, type SchedulerFilter, type SchedulerStatus, type SchedulersReads, type SchedulersWrites } from '../../projections/schedulers/view';

/** UTF-8 byte order, as SQLite's BINARY collation sorts the views file's rows. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The participant history index, open invocations and schedulers one audit pass folds (see
 * derivedViews in audit-pass.ts), kept for the length of the pass and read once at its end. Unlike
 * MemoryViews it keeps what the projections hand it without copying (they save a status once per page
 * and fold a copy of it, and write a fold back as they changed it), and it has no transactions: a fold
 * that throws is redone in the views file. Its lists are in the views file's order, the schedulers'
 * rows as JSON would read them back.
 */
export class PassFoldViews {
  readonly participantHistory = new PassParticipantHistory();
  readonly openInvocations = new InMemoryOpenInvocations();
  readonly schedulers = new PassSchedulers();
}

/** The index rows in the order they closed, as the views file's `seq` orders them. */
class PassParticipantHistory implements ParticipantHistoryWrites, ParticipantHistoryReads {
  private rows: HistoryIndexRow[] = [];
  private readonly kept = new Map<string, OpenedFor>();
  /**
   * One string per participant and episode for every row: each row's come from its own opening's
   * parse, and a long history's rows would otherwise hold a copy each (about 5 MB over 1M events).
   */
  private readonly shared = new Map<string, string>();
  setup(): void {}
  reset(): void {
    this.rows = [];
    this.kept.clear();
    this.shared.clear();
  }
  appendClosed(row: HistoryIndexRow): void {
    this.rows.push({ ...row, participant: this.share(row.participant), episode: this.share(row.episode) });
  }
  private share(text: string): string {
    const held = this.shared.get(text);
    if (held !== undefined) return held;
    this.shared.set(text, text);
    return text;
  }
  keepOpened(stream: string, openedFor: OpenedFor): void {
    // The views file keeps an open invocation by its stream's primary key: a second one is refused there too.
    if (this.kept.has(stream)) throw new Error(`the invocation of stream '${stream}' is kept open already`);
    this.kept.set(stream, openedFor);
  }
  opened(stream: string): OpenedFor | undefined {
    return this.kept.get(stream);
  }
  forgetOpened(stream: string): void {
    this.kept.delete(stream);
  }
  closedInvocations(filter: HistoryFilter): readonly HistoryIndexRow[] {
    return this.rows.filter((row) => matchesHistoryFilter(row, filter));
  }
  eachClosedInvocation(filter: HistoryFilter): Iterable<HistoryIndexRow> {
    return this.closedInvocations(filter);
  }
}

class PassSchedulers implements SchedulersWrites, SchedulersReads {
  /** By stream, in the order each first appeared (the views file's rowid order). */
  private readonly rows = new Map<string, { episodeId: string; status: SchedulerStatus }>();
  setup(): void {}
  reset(): void {
    this.rows.clear();
  }
  status(stream: string): SchedulerStatus | undefined {
    return this.rows.get(stream)?.status;
  }
  save(stream: string, episodeId: string, status: SchedulerStatus): void {
    const kept = this.rows.get(stream);
    if (kept === undefined) this.rows.set(stream, { episodeId, status });
    else kept.status = status;
  }
  list(filter: SchedulerFilter): readonly SchedulerStatus[] {
    return [...this.rows.values()]
      .filter((kept) => matchesSchedulerFilter(kept.episodeId, kept.status, filter))
      .sort(
        (a, b) =>
          byBytes(a.status.participant_address, b.status.participant_address) ||
          byBytes(a.status.policy_address, b.status.policy_address) ||
          byBytes(a.episodeId, b.episodeId),
      )
      .map((kept) => JSON.parse(JSON.stringify(kept.status)) as SchedulerStatus);
  }
  episodes(): readonly string[] {
    return [...new Set([...this.rows.values()].map((kept) => kept.episodeId))];
  }
}
