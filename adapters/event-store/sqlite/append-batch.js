'use strict';
/**
 * The write side of the SQLite store: one batch of appends, one transaction. Plain CommonJS so that the
 * writer thread (writer-thread.js, loaded by Node without a TypeScript loader) and the in-thread writer
 * share it. Types: append-batch.d.ts.
 *
 * Each append of a batch runs in its own savepoint, so a conflict or a failed insert undoes only that
 * append; a failure of BEGIN or COMMIT fails every append of the batch. Revisions are plain numbers
 * here, -1 standing for "no stream"; the checks mirror ../expected-revision.ts, and the event-store
 * contract spec runs against both.
 */

const NO_STREAM = -1;
/** Stream ids are never deleted, so the cache is always right; it is only bounded. */
const MAX_CACHED_STREAM_IDS = 50000;

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
  }

  /** Writes `appends` in one transaction; returns one outcome per append, in order, after COMMIT. */
  write(appends) {
    const outcomes = new Array(appends.length);
    try {
      this.begin.run();
      const recordedAt = this.now();
      // A lone append needs no savepoint: on failure the whole transaction is rolled back.
      const alone = appends.length === 1;
      for (let index = 0; index < appends.length; index += 1) {
        outcomes[index] = alone ? this.appendOne(appends[index], recordedAt) : this.appendInSavepoint(appends[index], recordedAt);
      }
      this.commit.run();
      this.keepNewStreamIds();
    } catch (error) {
      this.newStreamIds.clear();
      let reason = `committing ${appends.length} append(s) failed: ${describeError(error)}`;
      try {
        if (this.db.inTransaction) this.rollback.run();
      } catch (rollbackError) {
        reason += ` (and the rollback failed: ${describeError(rollbackError)})`;
      }
      const failure = { kind: 'storage_failure', reason };
      for (let index = 0; index < appends.length; index += 1) outcomes[index] = failure;
    }
    return outcomes;
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
    const last = this.currentRevision.get(streamId);
    const current = last === null || last === undefined ? NO_STREAM : last;
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
      position = this.insert.run(stream, streamId, revision, event.id, event.type, event.data, event.metadata, recordedAt).lastInsertRowid;
      revision += 1;
    }
    return { kind: 'appended', next: revision - 1, position: Number(position) };
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

module.exports = { AppendBatchWriter, NO_STREAM, decodeAppends, encodeOutcomes, APPENDED, CONFLICT, FAILED };
