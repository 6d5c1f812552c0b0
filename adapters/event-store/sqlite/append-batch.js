'use strict';
/**
 * The write side of the SQLite store: one batch of appends, one transaction. Plain CommonJS so that the
 * writer thread (writer-thread.js, loaded by Node without a TypeScript loader) and the in-thread writer
 * share it. Types: append-batch.d.ts.
 *
 * A batch is first written without savepoints (a savepoint per append is three more statements each).
 * If an append fails inside it (an insert throws), the transaction is rolled back and the batch written
 * again with a savepoint per append, so the failing append fails alone and the others commit. A
 * conflict writes nothing, so it needs no savepoint. A failure of BEGIN or COMMIT fails every append of
 * the batch. Revisions are plain numbers here, -1 standing for "no stream"; the checks mirror
 * ../expected-revision.ts, and the event-store contract spec runs against both.
 *
 * Each stream's last revision is cached, so an append does not look it up. Another connection (another
 * process, or this process's reading connection) may write the file: `PRAGMA data_version` changes
 * when one has committed, and it is read after BEGIN IMMEDIATE (nobody else can commit then), so a
 * change empties the cache before anything is decided from it.
 */

const { MetadataColumnWriter } = require('./metadata-column');

const NO_STREAM = -1;
/** Stream ids are never deleted, so the cache is always right; it is only bounded. */
const MAX_CACHED_STREAM_IDS = 50000;
/** Last revisions of recently appended streams; bounded the same way. */
const MAX_CACHED_REVISIONS = 50000;

const describeError = (error) => (error instanceof Error ? error.message : String(error));

const satisfiesExpected = (expected, current) => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === NO_STREAM;
    case 'stream_exists':
      return current !== NO_STREAM;
    default:
      return current !== NO_STREAM && current === expected;
  }
};

/** Where a retried append's events would already sit (see reappendStartRevision); undefined if nowhere. */
const reappendStart = (expected, current, count) => {
  if (current === NO_STREAM || count === 0) return undefined;
  let start;
  switch (expected) {
    case 'no_stream':
      start = 0;
      break;
    case 'any':
    case 'stream_exists':
      start = current - count + 1;
      break;
    default:
      start = expected + 1;
  }
  return start >= 0 && start + count - 1 <= current ? start : undefined;
};

class AppendBatchWriter {
  constructor(db, now = Date.now) {
    this.db = db;
    this.now = now;
    /** Ids of streams committed to the file. */
    this.streamIds = new Map();
    /** Ids of streams created by the transaction in hand: kept only if it commits. */
    this.newStreamIds = new Map();
    this.selectStreamId = db.prepare('SELECT id FROM streams WHERE name = ?').pluck();
    this.insertStream = db.prepare('INSERT INTO streams (name) VALUES (?)');
    this.currentRevision = db.prepare('SELECT MAX(revision) FROM events WHERE stream_id = ?').pluck();
    this.idsBetween = db.prepare(
      'SELECT id, position FROM events WHERE stream_id = ? AND revision BETWEEN ? AND ? ORDER BY revision',
    );
    this.insert = db.prepare(
      'INSERT INTO events (stream, stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT append');
    this.release = db.prepare('RELEASE append');
    this.rollbackToSavepoint = db.prepare('ROLLBACK TO append');
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.metadataColumn = new MetadataColumnWriter();
    /** Stream id -> last committed revision, while no other connection has written the file. */
    this.revisions = new Map();
    /** Stream id -> last revision written by the transaction in hand: kept only if it commits. */
    this.newRevisions = new Map();
    /** data_version when `revisions` was last known right; undefined before the first transaction. */
    this.seenDataVersion = undefined;
  }

  /** Writes `appends` in one transaction; returns one outcome per append, in order, after COMMIT. */
  write(appends) {
    const outcomes = this.writeBatch(appends, false);
    // An append failed inside the transaction, which was rolled back: again, each in its own savepoint.
    return outcomes === undefined ? this.writeBatch(appends, true) : outcomes;
  }

  /**
   * One transaction. Without savepoints, undefined when an append failed inside it (rolled back,
   * nothing written); with them, a failing append fails alone.
   */
  writeBatch(appends, savepoints) {
    const outcomes = new Array(appends.length);
    let inAppends = false;
    try {
      this.begin.run();
      this.forgetRevisionsIfOthersWrote();
      const recordedAt = this.now();
      inAppends = true;
      for (let index = 0; index < appends.length; index += 1) {
        outcomes[index] = savepoints ? this.appendInSavepoint(appends[index], recordedAt) : this.appendOne(appends[index], recordedAt);
      }
      inAppends = false;
      this.commit.run();
      this.keepNewStreamIds();
      this.keepNewRevisions();
    } catch (error) {
      this.newStreamIds.clear();
      this.newRevisions.clear();
      // Whatever failed, nothing cached is trusted any more.
      this.revisions.clear();
      let reason = `committing ${appends.length} append(s) failed: ${describeError(error)}`;
      let rolledBack = true;
      try {
        if (this.db.inTransaction) this.rollback.run();
      } catch (rollbackError) {
        rolledBack = false;
        reason += ` (and the rollback failed: ${describeError(rollbackError)})`;
      }
      if (inAppends && !savepoints && rolledBack && appends.length > 1) return undefined;
      const failure = { kind: 'storage_failure', reason };
      for (let index = 0; index < appends.length; index += 1) outcomes[index] = failure;
    }
    return outcomes;
  }

  /** Empties the revision cache when another connection committed since this one last looked. */
  forgetRevisionsIfOthersWrote() {
    const version = this.dataVersion.get();
    if (version !== this.seenDataVersion) {
      this.revisions.clear();
      this.seenDataVersion = version;
    }
  }

  appendInSavepoint(append, recordedAt) {
    // The stream row is created outside the savepoint: a stream without events reads as no stream.
    const streamId = this.streamId(append.stream);
    this.savepoint.run();
    try {
      const outcome = this.appendTo(streamId, append, recordedAt);
      this.release.run();
      return outcome;
    } catch (error) {
      this.rollbackToSavepoint.run();
      this.release.run();
      return { kind: 'storage_failure', reason: `appending to '${append.stream}' failed: ${describeError(error)}` };
    }
  }

  appendOne(append, recordedAt) {
    return this.appendTo(this.streamId(append.stream), append, recordedAt);
  }

  appendTo(streamId, append, recordedAt) {
    const { stream, expected, events } = append;
    const current = this.lastRevision(streamId);
    const start = reappendStart(expected, current, events.length);
    if (start !== undefined) {
      const already = this.alreadyAppended(streamId, events, start);
      if (already !== undefined) return already;
    }
    if (!satisfiesExpected(expected, current)) return { kind: 'version_conflict', actual: current };
    let revision = current + 1;
    let position = 0;
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index];
      position = this.insert.run(stream, streamId, revision, event.id, event.type, event.data, this.metadataColumn.columnOf(event.metadata), recordedAt).lastInsertRowid;
      revision += 1;
    }
    if (events.length > 0) this.newRevisions.set(streamId, revision - 1);
    return { kind: 'appended', next: revision - 1, position: Number(position) };
  }

  /** The stream's last revision as this transaction sees it; NO_STREAM when it has none. */
  lastRevision(streamId) {
    const written = this.newRevisions.get(streamId);
    if (written !== undefined) return written;
    const cached = this.revisions.get(streamId);
    if (cached !== undefined) return cached;
    const last = this.currentRevision.get(streamId);
    return last === null || last === undefined ? NO_STREAM : last;
  }

  keepNewRevisions() {
    if (this.newRevisions.size === 0) return;
    if (this.revisions.size + this.newRevisions.size > MAX_CACHED_REVISIONS) this.revisions.clear();
    for (const [streamId, revision] of this.newRevisions) this.revisions.set(streamId, revision);
    this.newRevisions.clear();
  }

  /** The earlier append's outcome when the events from `start` on carry these ids, in order. */
  alreadyAppended(streamId, events, start) {
    const recorded = this.idsBetween.all(streamId, start, start + events.length - 1);
    if (recorded.length !== events.length) return undefined;
    for (let index = 0; index < events.length; index += 1) {
      if (recorded[index].id !== events[index].id) return undefined;
    }
    return { kind: 'appended', next: start + events.length - 1, position: recorded[events.length - 1].position };
  }

  streamId(name) {
    const known = this.streamIds.get(name);
    if (known !== undefined) return known;
    const created = this.newStreamIds.get(name);
    if (created !== undefined) return created;
    const stored = this.selectStreamId.get(name);
    if (stored !== undefined) {
      this.cache(name, stored);
      return stored;
    }
    const id = Number(this.insertStream.run(name).lastInsertRowid);
    this.newStreamIds.set(name, id);
    return id;
  }

  keepNewStreamIds() {
    if (this.newStreamIds.size === 0) return;
    for (const [name, id] of this.newStreamIds) this.cache(name, id);
    this.newStreamIds.clear();
  }

  cache(name, id) {
    if (this.streamIds.size >= MAX_CACHED_STREAM_IDS) this.streamIds.clear();
    this.streamIds.set(name, id);
  }
}

/**
 * The appends of a message, from their flat form: per append its stream, expected revision and event
 * count, then per event its id, type, data and metadata (see encodeAppends in append-queue.ts). A flat
 * array of strings and numbers costs the structured clone between threads much less than objects.
 */
const decodeAppends = (flat, into) => {
  let at = 0;
  while (at < flat.length) {
    const stream = flat[at];
    const expected = flat[at + 1];
    const count = flat[at + 2];
    at += 3;
    const events = new Array(count);
    for (let index = 0; index < count; index += 1) {
      events[index] = { id: flat[at], type: flat[at + 1], data: flat[at + 2], metadata: flat[at + 3] };
      at += 4;
    }
    into.push({ stream, expected, events });
  }
  return into;
};

const APPENDED = 0;
const CONFLICT = 1;
const FAILED = 2;

/**
 * Outcomes in flat form: three numbers each (kind, then next revision and position, or the actual
 * revision, or the index of the failure's reason in `reasons`).
 */
const encodeOutcomes = (outcomes) => {
  const codes = new Float64Array(outcomes.length * 3);
  const reasons = [];
  for (let index = 0; index < outcomes.length; index += 1) {
    const outcome = outcomes[index];
    const at = index * 3;
    if (outcome.kind === 'appended') {
      codes[at] = APPENDED;
      codes[at + 1] = outcome.next;
      codes[at + 2] = outcome.position;
    } else if (outcome.kind === 'version_conflict') {
      codes[at] = CONFLICT;
      codes[at + 1] = outcome.actual;
    } else {
      codes[at] = FAILED;
      codes[at + 1] = reasons.length;
      reasons.push(outcome.reason);
    }
  }
  return { codes, reasons };
};

module.exports = { AppendBatchWriter, NO_STREAM, decodeAppends, encodeOutcomes, describeError, APPENDED, CONFLICT, FAILED };
