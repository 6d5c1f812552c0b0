import { createHash, type Hash } from 'node:crypto';
import { invocationHistory, type BehaviorHistoryEvent, type InvocationState } from '../../domain/invocation';
import { IntegrityVerifier, type IntegrityReport } from '../../domain/integrity/verify';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store';
import { parseInvocationStream } from '../../domain/streams';
import { openingParticipant } from '../../domain/stored-events';
import {
  ProjectionRunner,
  openInvocationsProjection,
  participantHistoryProjection,
  schedulersProjection,
  renderRecordedInvocationHistory,
  verifyHistory,
  type AllProjectionViews,
  type AuditFinding,
  type CatchUpResult,
  type HistoryFilter,
  type HistoryIndexRow,
  type Projection,
} from '../../projections';
import type { OpenInvocationsReads } from '../../projections/open-invocations';
import type { ParticipantHistoryReads } from '../../projections/participant-history/view';
import type { SchedulersReads } from '../../projections/schedulers/view';
import { auditedInvocation, draftsOf, foldStream } from './audited-invocation';
import { InvocationSpool, type RenderInvocation } from './invocation-spool';
import { passIntegrity } from './pass-integrity';
import { PassFoldViews } from './pass-views';
import type { Workspace } from './workspace';

/**
 * The audit's one read of the log, in position order: every event goes through the integrity check,
 * the views the audit reads are caught up from the same pages (or, on a cold start, folded into rows
 * of the pass's own: see derivedViews), and each
 * invocation's events are kept only while it is open. When it closes, its history is rendered and verified and its audited form
 * spooled to a file. An operator's resolution of an indeterminate action comes after the closing: the
 * few invocations resolved later are read again from the store at the end and audited as they stand.
 * Memory holds the open invocations and a head per stream, whatever the length of the history.
 *
 * What the pass lists is the participant history view's index as the projection builds it from the
 * same events: the caller checks that the view says the same (`rowsDigest`), and otherwise audits from
 * the view as it is (a damaged view then shows in the findings).
 */

/** The views the audit lists its closed invocations, open invocations, schedulers and episodes from once the pass is over. */
export type PassViews = {
  readonly participantHistory: ParticipantHistoryReads;
  readonly openInvocations: OpenInvocationsReads;
  readonly schedulers: SchedulersReads;
};

export type PassResult = {
  readonly integrity: IntegrityReport;
  readonly caught: CatchUpResult;
  /** The views the audit reads: folded in memory by the pass, or the views file's. */
  readonly views: PassViews;
  readonly spool: InvocationSpool;
  /** Whether every invocation was rendered as the view's rows would render it; false sends the caller to the view. */
  readonly usable: boolean;
  /** A digest of the index rows the pass listed, in order, to compare with the view's (see digestRows). */
  readonly rowsDigest: string;
  readonly episodes: ReadonlySet<string>;
  readonly findings: readonly AuditFinding[];
  readonly historyEvents: number;
  readonly toolActionCount: number;
};

/** Folds the index rows into the digest the pass compares with the view's rows. */
export const digestRows = (rows: Iterable<HistoryIndexRow>, hash: Hash = createHash('sha256')): string => {
  for (const row of rows) addRow(hash, row);
  return hash.digest('hex');
};

const addRow = (hash: Hash, row: HistoryIndexRow): void => {
  hash.update(`${row.participant}\u0000${row.episode}\u0000${row.invocation}\u0000${row.closingRevision}\n`);
};

type Tracked = { readonly participant: string; readonly episode: string; readonly invocation: string; readonly events: RecordedEvent[] };

/** A closed invocation's stream: its closing revision while an operator may still resolve one of its actions, else NOT_RESOLVABLE. */
const NOT_RESOLVABLE = -1;

/**
 * The invocation's fold at its closing and its history, when the history renders as
 * renderRecordedInvocationHistory renders the row's (every revision up to the closing, a closed
 * invocation of the row's participant and episode) and its events decode; undefined otherwise (the
 * view's rows are then audited instead).
 */
const foldClosed = (
  stream: string,
  row: HistoryIndexRow,
  events: readonly RecordedEvent[],
): { readonly folded: { readonly kind: 'folded'; readonly state: InvocationState }; readonly history: readonly BehaviorHistoryEvent[] } | undefined => {
  if (events.length !== row.closingRevision + 1) return undefined;
  try {
    const folded = foldStream(stream, events);
    if (folded.kind === 'unavailable') return undefined;
    const state = folded.state;
    if (state.status !== 'opened' || state.lifecycle.status !== 'closed') return undefined;
    if (state.portValues.participant_address !== row.participant || state.portValues.episode_id !== row.episode) return undefined;
    return { folded, history: invocationHistory(state) };
  } catch {
    return undefined;
  }
};

/** Whether an operator may still resolve one of the invocation's actions: a later event would change its audit. */
const resolvable = (state: ReturnType<typeof foldStream>): boolean =>
  state.kind === 'folded' &&
  state.state.status === 'opened' &&
  state.state.toolActions.some((record) => record.phase === 'settled' && record.settlement.kind === 'indeterminate' && record.resolution === null);

export const passOverLog = async (
  workspace: Workspace,
  projections: readonly Projection<AllProjectionViews>[],
  filter: HistoryFilter,
  render: RenderInvocation,
  /** Whether the views the audit reads may be folded in memory (see derivedViews): for a caller that reads them only from the result. */
  foldInMemory = false,
): Promise<PassResult> => {
  const derived = foldInMemory ? derivedViews(workspace, projections) : undefined;
  const integrity = await passIntegrity(workspace.store);
  const spool = new InvocationSpool(render);
  const hash = createHash('sha256');
  /**
   * Each invocation stream the pass follows: its events while it is open, then its closing revision
   * once it was audited at its closing (see NOT_RESOLVABLE). Entries change in place and are never
   * deleted. A Map that deletes all the time gets a new table every few entries, and V8 keeps a
   * replaced table, with its entries and a link to its successor, until a full collection: once one is
   * in the old generation, the events of the open invocations it and every later table name survive
   * the young collections and are promoted (docs/decisions.md, the audit's map of streams).
   */
  const streams = new Map<string, Tracked | number>();
  /** Closed invocations that a resolution followed: their closing revision, by stream. */
  const resolvedLater = new Map<string, number>();
  const episodes = new Set<string>();
  const findings: AuditFinding[] = [];
  const invocationFindings: AuditFinding[] = [];
  let historyEvents = 0;
  let toolActionCount = 0;
  let usable = true;

  /** Audits the invocation at its closing; answers what its stream's entry becomes (see NOT_RESOLVABLE). */
  const close = (stream: string, tracked: Tracked, revision: number): number => {
    const row: HistoryIndexRow = { participant: tracked.participant, episode: tracked.episode, invocation: tracked.invocation, closingRevision: revision };
    addRow(hash, row);
    episodes.add(tracked.episode);
    // One fold gives the history and the audit: its events are all the stream holds up to the closing.
    const atClosing = foldClosed(stream, row, tracked.events);
    if (atClosing === undefined) {
      usable = false;
      return NOT_RESOLVABLE;
    }
    const { folded, history } = atClosing;
    // verifyHistory lists the triples' findings before the invocations' ones: kept so across invocations.
    for (const finding of verifyHistory(history, historyEvents)) {
      (finding.code === 'triple_incomplete' || finding.code === 'triple_split' ? findings : invocationFindings).push(finding);
    }
    historyEvents += history.length;
    const drafts = draftsOf(history);
    if (drafts.some((draft) => draft.invocation !== tracked.invocation)) {
      usable = false;
      return NOT_RESOLVABLE;
    }
    const draft = drafts[0];
    if (draft !== undefined) {
      const audited = auditedInvocation(draft, folded.state);
      toolActionCount += audited.tool_actions.length;
      spool.add(audited);
    }
    return resolvable(folded) ? revision : NOT_RESOLVABLE;
  };

  const visit = (events: readonly RecordedEvent[]): void => {
    derived?.fold(events);
    for (const event of events) {
      integrity.see(event);
      if (!usable) continue;
      const stream = event.stream;
      const followed = streams.get(stream);
      if (typeof followed === 'object') {
        followed.events.push(event);
        // Set again under the key it has: the opening's stream name, the same string the integrity check keeps as the stream's head.
        if (event.type === 'InvocationClosed') streams.set(stream, close(stream, followed, Number(event.revision)));
        continue;
      }
      if (followed !== undefined) {
        // Only a resolution may follow a closing, and only of an action an operator may still resolve.
        if (followed === NOT_RESOLVABLE || event.type !== 'ToolActionResolved') usable = false;
        else resolvedLater.set(stream, followed);
        continue;
      }
      if (event.type !== 'InvocationOpened') continue;
      const name = parseInvocationStream(stream);
      if (name === undefined) continue;
      const participant = openingParticipant(event.data);
      // An opening that names no participant was changed: the view's rows are audited instead.
      if (participant === undefined) {
        usable = false;
        continue;
      }
      if (filter.participant !== undefined && participant !== filter.participant) continue;
      if (filter.episode !== undefined && name.episodeId !== filter.episode) continue;
      if (filter.invocation !== undefined && name.invocationActionInstanceId !== filter.invocation) continue;
      // An invocation's history starts at its opening: a stream holding events before it is not the projection's.
      if (event.revision !== 0n) {
        usable = false;
        continue;
      }
      streams.set(stream, { participant, episode: name.episodeId, invocation: name.invocationActionInstanceId, events: [event] });
    }
  };

  // Small pages: a page's events are let go before the young generation's collections promote them, which keeps the heap small.
  const runner = new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: derived?.rest ?? projections, pageSize: 250 });
  let caught: CatchUpResult;
  let views: PassViews = workspace.views;
  try {
    caught = await runner.catchUpAlong(visit);
    if (derived !== undefined) {
      derived.end();
      if (derived.failed) {
        // A fold that throws is the projection's failure: caught up in the views file, it is reported as
        // the runner reports it. The participant history's failure comes first, as it did when its view
        // was caught up along the pass and only the other two were folded.
        for (const group of CAUGHT_UP_AFTER_A_FAILED_FOLD) {
          const again = await new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: group }).catchUp();
          if (caught.kind === 'caught_up' && again.kind !== 'caught_up') caught = again;
        }
      } else views = derived.memory;
    }
    if (caught.kind === 'caught_up' && usable) usable = await auditResolvedLater(workspace.store, resolvedLater, spool);
  } catch (error) {
    integrity.dispose();
    spool.dispose();
    throw error;
  }
  const checked = await integrity.report();
  // A check that could not read the store fails the audit as the pass's own read would have.
  if ('kind' in checked && caught.kind === 'caught_up') caught = checked;
  for (const finding of invocationFindings) findings.push(finding);
  return {
    integrity: 'kind' in checked ? new IntegrityVerifier().report() : checked,
    caught,
    views,
    spool,
    usable,
    rowsDigest: hash.digest('hex'),
    episodes,
    findings,
    historyEvents,
    toolActionCount,
  };
};

/**
 * The projections the pass folds in memory rather than catching their views up (their rows are only
 * read at the end), in the groups a failed fold catches them up in the views file.
 */
const CAUGHT_UP_AFTER_A_FAILED_FOLD: readonly (readonly Projection<AllProjectionViews>[])[] = [[participantHistoryProjection], [openInvocationsProjection, schedulersProjection]];
const FOLDED_IN_MEMORY: readonly Projection<AllProjectionViews>[] = CAUGHT_UP_AFTER_A_FAILED_FOLD.flat();

type Derived = {
  readonly memory: PassFoldViews;
  readonly folded: readonly Projection<AllProjectionViews>[];
  readonly rest: readonly Projection<AllProjectionViews>[];
  failed: boolean;
  fold(events: readonly RecordedEvent[]): void;
  /** Ends the open invocations' and schedulers' one page, once every event went by. */
  end(): void;
};

/**
 * The participant history index, open invocations and schedulers folded by their own projections over
 * the pass's pages into rows kept for the pass (pass-views.ts), when the views file has never held them
 * (a cold start): the rows are then those the catch-up would write, without a views transaction per
 * read, nor a select and an upsert per event. A views file that holds them (even damaged) is caught up
 * and read as it is.
 *
 * The open invocations and schedulers fold the whole pass as one page, ended once at the end: an
 * invocation that opens and closes within a page is neither folded nor written (its recovery fold is
 * needed only while it is open), so only those still open at the end are folded. The participant
 * history ends a page at every read, which keeps its page's memory small and young.
 */
const derivedViews = (workspace: Workspace, projections: readonly Projection<AllProjectionViews>[]): Derived | undefined => {
  const folded = FOLDED_IN_MEMORY.filter((projection) => projections.includes(projection));
  if (folded.length !== FOLDED_IN_MEMORY.length) return undefined;
  try {
    if (folded.some((projection) => workspace.views.checkpoints.read(projection.name) !== undefined)) return undefined;
  } catch {
    return undefined;
  }
  const memory = new PassFoldViews();
  participantHistoryProjection.setup(memory);
  openInvocationsProjection.setup(memory);
  schedulersProjection.setup(memory);
  /** Runs `work` on the folds unless one failed already; a fold that throws fails them all, its pending rows dropped. */
  const unlessFailed = (work: () => void): void => {
    if (derived.failed) return;
    try {
      work();
    } catch {
      for (const projection of folded) projection.discardPending?.();
      derived.failed = true;
    }
  };
  const derived: Derived = {
    memory,
    folded,
    rest: projections.filter((projection) => !folded.includes(projection)),
    failed: false,
    fold: (events) =>
      unlessFailed(() => {
        for (const event of events) participantHistoryProjection.apply(memory, event);
        participantHistoryProjection.endPage?.(memory);
        for (const event of events) openInvocationsProjection.apply(memory, event);
        for (const event of events) schedulersProjection.apply(memory, event);
      }),
    end: () =>
      unlessFailed(() => {
        openInvocationsProjection.endPage?.(memory);
        schedulersProjection.endPage?.(memory);
      }),
  };
  return derived;
};

/** The invocations resolved after they closed, each read again and audited as it stands now. */
const auditResolvedLater = async (store: EventStore, streams: ReadonlyMap<string, number>, spool: InvocationSpool): Promise<boolean> => {
  for (const [stream, closingRevision] of streams) {
    const name = parseInvocationStream(stream);
    const read = await store.readStream(stream);
    if (name === undefined || read.kind !== 'read' || read.events.length === 0) return false;
    const participant = openingParticipant(read.events[0]!.data);
    if (participant === undefined) return false;
    const row = { participant, episode: name.episodeId, invocation: name.invocationActionInstanceId, closingRevision };
    const history = renderRecordedInvocationHistory(row, read.events);
    if ('kind' in history) return false;
    const draft = draftsOf(history)[0];
    const folded = foldStream(stream, read.events);
    if (folded.kind === 'unavailable') return false;
    if (draft !== undefined) spool.replace(auditedInvocation(draft, folded.state));
  }
  return true;
};
