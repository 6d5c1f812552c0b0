import { evolveScheduler, foldedMembersRefusal, initialSchedulerState, type SchedulerState } from '../../domain/scheduler';
import type { SchedulerSnapshot } from '../../domain/ports/open-invocations';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';
import { linkDigestOf } from '../../domain/integrity/chain';
import type { RecordedEvent } from '../../domain/ports/event-store';
import type { SchedulerSnapshotsReads, SchedulerSnapshotsWrites } from './view';

export type { SchedulerSnapshotsReads, SchedulerSnapshotsWrites } from './view';

/**
 * Scheduler snapshots: each scheduler stream's folded state and the revision it reflects, kept in the
 * views by the same catch-up that keeps the open-invocations view. On start the runtime manager
 * restores its schedulers from them instead of folding every scheduler stream from its beginning, so
 * startup does not grow with the length of history. They are the runtime's own recovery state, not a
 * read model for people: the folding is the scheduler's decider's `evolveScheduler`.
 */

/** The views this projection keeps its rows in. */
export interface SchedulerSnapshotsViews {
  readonly schedulerSnapshots: SchedulerSnapshotsWrites;
}

/** A scheduler's fold in the page in hand: `last`, its latest event, whose link the snapshot keeps once the page ends. */
type Folding = { state: SchedulerState; revision: number; last: RecordedEvent };

/** Snapshots folded in this page, written once at its end (a scheduler has several events per page). */
const pageSnapshots = new PageMemory<Folding>();

export const schedulerSnapshotsProjection: Projection<SchedulerSnapshotsViews> = {
  name: 'scheduler-snapshots',
  // 2: each snapshot keeps the link digest of the event at its revision.
  version: 2,
  setup(views) {
    views.schedulerSnapshots.setup();
  },
  reset(views) {
    pageSnapshots.forget(views.schedulerSnapshots);
    views.schedulerSnapshots.reset();
  },
  apply(views, recorded) {
    const event = asSchedulerEvent(recorded);
    if (event === undefined) return;
    // Recovery restores its schedulers from these snapshots: an event the fold cannot take fails the page.
    const refusal = foldedMembersRefusal(event);
    if (refusal !== undefined) throw new Error(refusal);
    const rows = views.schedulerSnapshots;
    const pending = pageSnapshots.of(rows);
    let current = pending.get(recorded.stream);
    if (current === undefined) {
      const stored = rows.snapshot(recorded.stream);
      current = { state: stored === undefined ? initialSchedulerState() : stored.state, revision: -1, last: recorded };
      pending.set(recorded.stream, current);
    }
    current.state = evolveScheduler(current.state, event);
    current.revision = Number(recorded.revision);
    current.last = recorded;
  },
  endPage(views) {
    const rows = views.schedulerSnapshots;
    const pending = pageSnapshots.take(rows);
    if (pending === undefined) return;
    for (const [stream, folding] of pending) rows.save(stream, { state: folding.state, revision: folding.revision, link: linkDigestOf(folding.last) });
  },
  discardPending() {
    pageSnapshots.clear();
  },
};

/** Every scheduler's snapshot, by stream; empty before the projection's first page. */
export const readSchedulerSnapshots = (views: { readonly schedulerSnapshots: SchedulerSnapshotsReads }): ReadonlyMap<string, SchedulerSnapshot> =>
  views.schedulerSnapshots.all();

export type { SchedulerSnapshot };
