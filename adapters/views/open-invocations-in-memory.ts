import type { OpenInvocationFold, OpenInvocationRow, OpenInvocationsReads, OpenInvocationsWrites } from '../../projections/open-invocations';

type Kept = { row: OpenInvocationRow; readonly position: number };

/**
 * The open-invocations view held in memory (a cold audit's pass, recovery's fold of the views' tail):
 * the rows by stream, listed in the order they opened.
 */
export class InMemoryOpenInvocations implements OpenInvocationsWrites, OpenInvocationsReads {
  private readonly rows = new Map<string, Kept>();

  /** `rows` in the order they opened: each is placed before every row opened later (whose positions are past the views' checkpoint). */
  constructor(rows: readonly OpenInvocationRow[] = []) {
    for (let index = 0; index < rows.length; index++) this.rows.set(rows[index]!.stream, { row: rows[index]!, position: index - rows.length });
  }

  setup(): void {}

  reset(): void {
    this.rows.clear();
  }

  open(row: OpenInvocationRow, position: number): void {
    this.rows.set(row.stream, { row, position });
  }

  /** A new object each time: the projection moves the fold it is handed on in place. */
  fold(stream: string): OpenInvocationFold | undefined {
    const kept = this.rows.get(stream);
    return kept === undefined ? undefined : { recovery: kept.row.recovery, revision: kept.row.revision, link: kept.row.link };
  }

  updateFold(stream: string, fold: OpenInvocationFold): void {
    const kept = this.rows.get(stream);
    if (kept === undefined) return;
    const row = kept.row;
    kept.row = {
      invocation_action_instance_id: row.invocation_action_instance_id,
      stream: row.stream,
      participant_address: row.participant_address,
      episode_id: row.episode_id,
      opened_at: row.opened_at,
      recovery: fold.recovery,
      revision: fold.revision,
      link: fold.link,
    };
  }

  close(stream: string): void {
    this.rows.delete(stream);
  }

  listOpen(): readonly OpenInvocationRow[] {
    return [...this.rows.values()].sort((a, b) => a.position - b.position).map((kept) => kept.row);
  }
}
