import type { EventStore, RecordedEvent, Subscription, SubscriptionBatch, SubscriptionEnded } from '../domain/ports/event-store';
import { describeError } from '../domain/ports/storage-failure';
import type { ProjectionCheckpoints, ViewsPort } from '../domain/ports/views';

/**
 * A projection is a fold of the store's events into read-model rows it keeps in the views (its own
 * store, whatever the event store is), written through the typed operations it declares in `Views`.
 * A projection's rows and its checkpoint are written in one views transaction per page, so a view never
 * runs ahead of, or behind, the position it claims.
 */
export interface Projection<Views = unknown> {
  readonly name: string;
  /** Bumping the version makes the runner rebuild this projection from scratch. */
  readonly version: number;
  /** Creates the projection's rows when missing; idempotent. */
  setup(views: Views): void;
  /** Drops everything the projection wrote. */
  reset(views: Views): void;
  /** Runs inside the page's views transaction; throwing rolls the whole page back. */
  apply(views: Views, event: RecordedEvent): void;
  /** Optional: runs at the end of each page, inside its transaction (to flush what apply kept in memory). */
  endPage?(views: Views): void;
  /** Optional: forget what apply kept in memory (after a rolled back page or a reset). */
  discardPending?(): void;
}

export type CatchUpResult =
  | {
      readonly kind: 'caught_up';
      /** Position of the last event applied; undefined when the store holds no event yet. */
      readonly position: bigint | undefined;
      /** Events applied by this call (each counted once, however many projections saw it). */
      readonly applied: number;
    }
  | { readonly kind: 'projection_failed'; readonly projection: string; readonly position: bigint; readonly reason: string }
  | { readonly kind: 'storage_failure'; readonly reason: string };

export type CatchUpProgress = { readonly applied: number; readonly position: bigint };

export type LiveOptions = {
  /** How long to wait before following again after the subscription ended on a failure; 200 ms when absent. */
  readonly retryMs?: number;
  /** Sees each failure that ended the subscription (before the runner follows again). */
  readonly onEnded?: (ended: SubscriptionEnded) => void;
  /**
   * Runs after each batch's views transaction committed, before the next batch: the views then hold
   * the batch (a live page reads what changed). Throwing ends the subscription as a failed projection
   * would; the views keep the batch, so it is not handed over again.
   */
  readonly afterBatch?: (batch: SubscriptionBatch) => void | Promise<void>;
};

export type ProjectionRunnerOptions<Views> = {
  readonly store: EventStore;
  /** The views the projections keep their rows in, with the runner's transaction and checkpoints. */
  readonly views: ViewsPort & Views;
  readonly projections: readonly Projection<Views>[];
  /**
   * Events applied per views transaction while catching up; 4,000 when absent. The store is read at
   * most 1,000 events at a time and each read's events are let go once applied; a catch-up far behind
   * commits once per page (the views' commits cost about as much as their writes).
   */
  readonly pageSize?: number;
  /**
   * Events per store read, at most; 1,000 when absent. The reads of a page are held until its
   * transaction: 10,000 events held at once outgrew V8's young generation (a quarter of a catch-up
   * went to the GC).
   */
  readonly readSize?: number;
};

/** A page as read from the store: its reads in order, how many events they hold, the last one's position. */
type ReadPage = {
  /** Cleared read by read as the page is applied. */
  readonly reads: (readonly RecordedEvent[] | undefined)[];
  readonly events: number;
  readonly last: bigint | undefined;
  /** Whether the page holds `pageSize` events: the log may go on past it. */
  readonly full: boolean;
  /** Why the read after the page's last one failed. */
  readonly failure: CatchUpResult | undefined;
};

class ProjectionFailed extends Error {
  constructor(
    readonly projection: string,
    readonly position: bigint,
    readonly failure: unknown,
  ) {
    super(`projection '${projection}' failed on the event at position ${position}: ${describeError(failure)}`);
  }
}

/**
 * Feeds projections from the store's global order: reads pages after the lowest checkpoint and applies
 * each event to every projection whose checkpoint is behind it, one views transaction per page.
 */
export class ProjectionRunner<Views = unknown> {
  private readonly store: EventStore;
  private readonly views: ViewsPort & Views;
  private readonly checkpoints: ProjectionCheckpoints;
  private readonly projections: readonly Projection<Views>[];
  private readonly pageSize: number;
  /** Events per store read: the page size, or the read size when the page is bigger. */
  private readonly readSize: number;
  private prepared = false;
  /** Serializes catch-ups and rebuilds: one writer of the views at a time. */
  private running: Promise<unknown> = Promise.resolve();
  private liveTimer: NodeJS.Timeout | undefined;
  private live = false;
  private subscription: Subscription | undefined;

  constructor(options: ProjectionRunnerOptions<Views>) {
    const names = new Set<string>();
    for (const projection of options.projections) {
      if (names.has(projection.name)) throw new Error(`two projections are named '${projection.name}'`);
      names.add(projection.name);
    }
    this.store = options.store;
    this.views = options.views;
    this.checkpoints = options.views.checkpoints;
    this.projections = options.projections;
    this.pageSize = options.pageSize ?? 4000;
    this.readSize = Math.min(this.pageSize, options.readSize ?? 1000);
  }

  /** Applies every stored event not yet applied, page by page, then returns. */
  catchUp(onProgress?: (progress: CatchUpProgress) => void): Promise<CatchUpResult> {
    return this.serialized(() => this.catchUpNow(onProgress));
  }

  /**
   * Reads the whole store from its first event, hands every page to `visit` and applies to each
   * projection the events past its checkpoint, as catchUp does: one read of the log for a reader that
   * needs every event anyway (the audit). A projection that fails stops the applying, not the reading:
   * `visit` still sees every page, and the failure is the result.
   */
  catchUpAlong(visit: (events: readonly RecordedEvent[]) => void): Promise<CatchUpResult> {
    return this.serialized(async () => {
      const unprepared = this.preparedOrFailure();
      if (unprepared !== undefined) return unprepared;
      const count = this.projections.length;
      const positions: (bigint | null)[] = new Array<bigint | null>(count);
      const lowest = this.lowestCheckpoint();
      let failed: CatchUpResult | undefined;
      let after: bigint | undefined;
      let applied = 0;
      for (;;) {
        const read = await this.store.readAll(after === undefined ? { maxCount: this.readSize } : { after, maxCount: this.readSize });
        if (read.kind !== 'read') return { kind: 'storage_failure', reason: read.reason };
        const events = read.events;
        if (events.length === 0) break;
        const last = events[events.length - 1]!.position;
        visit(events);
        if (failed === undefined && count > 0 && (lowest === undefined || last > lowest)) {
          try {
            this.applyPage([events], last, positions);
            applied += events.length;
          } catch (error) {
            for (const projection of this.projections) projection.discardPending?.();
            failed =
              error instanceof ProjectionFailed
                ? projectionFailed(error.projection, error.position, error.message)
                : projectionFailed('', events[0]!.position, `writing the views failed: ${describeError(error)}`);
          }
        }
        after = last;
        if (events.length < this.readSize) break;
      }
      return failed ?? { kind: 'caught_up', position: after, applied };
    });
  }

  /** Drops the named projection's rows (every projection's when no name) and replays the whole store. */
  rebuild(name?: string, onProgress?: (progress: CatchUpProgress) => void): Promise<CatchUpResult> {
    return this.serialized(async () => {
      const chosen = name === undefined ? this.projections : this.projections.filter((p) => p.name === name);
      if (chosen.length === 0) {
        const known = this.projections.map((p) => p.name).join(', ');
        return projectionFailed(name ?? '', 0n, `no projection is named '${name}' (known: ${known})`);
      }
      try {
        this.prepareOnce();
        this.views.transaction(() => {
          for (const projection of chosen) this.resetProjection(projection);
        });
      } catch (error) {
        return projectionFailed(chosen[0]!.name, 0n, `resetting failed: ${describeError(error)}`);
      }
      return this.catchUpNow(onProgress);
    });
  }

  /**
   * Follows the log live through the store's catch-up subscription, from the lowest checkpoint: each
   * batch is applied in one views transaction with every projection's checkpoint (the caller-owned
   * checkpoint of the subscription). A subscription that ends on a failure (a projection that threw, a
   * store out of reach) is started again from the committed checkpoints after `retryMs`.
   */
  startLive(options: LiveOptions = {}): void {
    if (this.live) return;
    this.live = true;
    const retryMs = options.retryMs ?? 200;
    const afterBatch = options.afterBatch;
    const handle = async (batch: SubscriptionBatch): Promise<void> => {
      await this.serialized(async () => this.applyBatch(batch));
      if (afterBatch !== undefined) await afterBatch(batch);
    };
    const follow = (): void => {
      if (!this.live) return;
      void this.serialized(async () => {
        this.prepareOnce();
        return this.lowestCheckpoint();
      }).then(
        (after) => {
          if (!this.live) return;
          const subscription = this.store.subscribe({ ...(after === undefined ? {} : { after }), handle });
          this.subscription = subscription;
          void subscription.ended.then((ended) => {
            if (this.subscription === subscription) this.subscription = undefined;
            if (!this.live) return;
            options.onEnded?.(ended);
            this.liveTimer = setTimeout(follow, retryMs);
          });
        },
        () => {
          if (this.live) this.liveTimer = setTimeout(follow, retryMs);
        },
      );
    };
    follow();
  }

  /** Stops following the log and waits for the batch in hand. */
  async stop(): Promise<void> {
    this.live = false;
    if (this.liveTimer !== undefined) clearTimeout(this.liveTimer);
    this.liveTimer = undefined;
    const subscription = this.subscription;
    this.subscription = undefined;
    if (subscription !== undefined) await subscription.stop();
    await this.running.catch(() => undefined);
  }

  /** The position a projection has applied up to; undefined before its first event. */
  checkpointOf(name: string): bigint | undefined {
    return this.checkpoints.read(name)?.position ?? undefined;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Creates tables, and resets each projection whose stored version differs from its code. */
  private prepareOnce(): void {
    if (this.prepared) return;
    this.views.transaction(() => {
      for (const projection of this.projections) {
        const stored = this.checkpoints.read(projection.name);
        if (stored === undefined || stored.version !== projection.version) this.resetProjection(projection);
        else projection.setup(this.views);
      }
    });
    this.prepared = true;
  }

  private resetProjection(projection: Projection<Views>): void {
    projection.discardPending?.();
    projection.reset(this.views);
    projection.setup(this.views);
    this.checkpoints.remove(projection.name);
    this.checkpoints.write(projection.name, { version: projection.version, position: null });
  }

  /** The views database prepared for applying, or why it could not be. */
  private preparedOrFailure(): CatchUpResult | undefined {
    try {
      this.prepareOnce();
      return undefined;
    } catch (error) {
      return projectionFailed('', 0n, `preparing the views database failed: ${describeError(error)}`);
    }
  }

  /** The position every projection has applied up to (undefined when one has applied nothing). */
  private lowestCheckpoint(): bigint | undefined {
    let lowest: bigint | undefined;
    for (const projection of this.projections) {
      const position = this.checkpoints.read(projection.name)?.position ?? null;
      if (position === null) return undefined;
      if (lowest === undefined || position < lowest) lowest = position;
    }
    return lowest;
  }

  /** One subscription batch: applied and checkpointed in one views transaction; a failure ends the subscription. */
  private applyBatch(batch: SubscriptionBatch): void {
    try {
      this.applyPage([batch.events], batch.position, new Array<bigint | null>(this.projections.length));
    } catch (error) {
      for (const projection of this.projections) projection.discardPending?.();
      throw error;
    }
  }

  private async catchUpNow(onProgress?: (progress: CatchUpProgress) => void): Promise<CatchUpResult> {
    const unprepared = this.preparedOrFailure();
    if (unprepared !== undefined) return unprepared;
    const count = this.projections.length;
    const positions: (bigint | null)[] = new Array<bigint | null>(count);
    let lowest: bigint | null | undefined;
    for (let i = 0; i < count; i++) {
      const position = this.checkpoints.read(this.projections[i]!.name)?.position ?? null;
      positions[i] = position;
      if (lowest === undefined || position === null || (lowest !== null && position < lowest)) lowest = position;
    }
    let after = lowest ?? undefined;
    let applied = 0;
    if (count === 0) return { kind: 'caught_up', position: after, applied };
    for (;;) {
      const page = await this.readPage(after);
      const reads = page.reads;
      if (reads.length > 0) {
        const first = reads[0]![0]!.position;
        const last = page.last!;
        try {
          this.applyPage(reads, last, positions);
        } catch (error) {
          for (const projection of this.projections) projection.discardPending?.();
          if (error instanceof ProjectionFailed) return projectionFailed(error.projection, error.position, error.message);
          return projectionFailed('', first, `writing the views failed: ${describeError(error)}`);
        }
        for (let i = 0; i < count; i++) {
          const position = positions[i];
          if (position === null || position === undefined || position < last) positions[i] = last;
        }
        after = last;
        applied += page.events;
        onProgress?.({ applied, position: last });
      }
      if (page.failure !== undefined) return page.failure;
      if (!page.full) break;
    }
    return { kind: 'caught_up', position: after, applied };
  }

  /**
   * The next page after `after`: store reads of at most `readSize` events until the page holds
   * `pageSize` events or a read comes back short (the end of the log). A read that fails ends the page
   * with what was read before it, which is still applied.
   */
  private async readPage(after: bigint | undefined): Promise<ReadPage> {
    const reads: (readonly RecordedEvent[] | undefined)[] = [];
    let events = 0;
    let last = after;
    for (;;) {
      const maxCount = Math.min(this.readSize, this.pageSize - events);
      const read = await this.store.readAll(last === undefined ? { maxCount } : { after: last, maxCount });
      if (read.kind !== 'read') return { reads, events, last, full: false, failure: { kind: 'storage_failure', reason: read.reason } };
      const got = read.events;
      if (got.length > 0) {
        reads.push(got);
        events += got.length;
        last = got[got.length - 1]!.position;
      }
      if (got.length < maxCount) return { reads, events, last, full: false, failure: undefined };
      if (events >= this.pageSize) return { reads, events, last, full: true, failure: undefined };
    }
  }

  /**
   * One views transaction: every projection's rows for the page and its new checkpoint, or nothing.
   * It takes the write lock first and reads each checkpoint under it: another process (a second audit,
   * say) may have applied part of this page since this runner last looked, and must not be applied twice.
   * `last` is the position the page reaches, which may be past its last event (a subscription batch).
   */
  private applyPage(reads: (readonly RecordedEvent[] | undefined)[], last: bigint, positions: (bigint | null)[]): void {
    const views = this.views;
    const checkpoints = this.checkpoints;
    const projections = this.projections;
    views.transaction(() => {
      const count = projections.length;
      // Per projection, the position its events start after; undefined for a projection already past
      // this page (it was ahead of the others), which keeps its checkpoint.
      const from = new Array<bigint | null | undefined>(count);
      for (let p = 0; p < count; p++) {
        const position = checkpoints.read(projections[p]!.name)?.position ?? null;
        positions[p] = position;
        from[p] = position !== null && position >= last ? undefined : position;
      }
      // Read by read, every projection in turn: a read's events are parsed, applied and let go.
      for (let r = 0; r < reads.length; r++) {
        const events = reads[r]!;
        reads[r] = undefined;
        for (let p = 0; p < count; p++) {
          const after = from[p];
          if (after === undefined) continue;
          const projection = projections[p]!;
          for (let e = 0; e < events.length; e++) {
            const event = events[e]!;
            if (after !== null && event.position <= after) continue;
            try {
              projection.apply(views, event);
            } catch (error) {
              throw new ProjectionFailed(projection.name, event.position, error);
            }
          }
        }
      }
      for (let p = 0; p < count; p++) {
        if (from[p] === undefined) continue;
        const projection = projections[p]!;
        try {
          projection.endPage?.(views);
        } catch (error) {
          throw new ProjectionFailed(projection.name, last, error);
        }
        checkpoints.write(projection.name, { version: projection.version, position: last });
      }
    });
  }
}

const projectionFailed = (projection: string, position: bigint, reason: string): CatchUpResult => ({
  kind: 'projection_failed',
  projection,
  position,
  reason,
});
