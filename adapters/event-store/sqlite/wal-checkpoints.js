'use strict';
/**
 * When the store's WAL is copied into the database file, for the writer thread (docs/decisions.md,
 * the store's WAL is checkpointed by a thread of its own). SQLite's automatic checkpoint runs inside
 * the COMMIT that crosses 1,000 pages of WAL: that commit, and every append queued behind it, waits
 * for the copy and its fsync (about 8 ms against 0.6 ms for a usual group commit). Here the writer's
 * connection commits without it (`wal_autocheckpoint = 0`): when the writer starts (what an earlier
 * process left in the WAL) and then once about `CHECKPOINT_EVERY` pages were committed, the checkpoint
 * thread copies what was committed while the writer goes on. A WAL starts over from its beginning
 * only at a commit that finds every frame copied, which a copy beside busy commits never leaves: so
 * once the checkpoint thread is done, the writer's connection copies the frames committed meanwhile
 * itself (a short PASSIVE checkpoint between two group commits), and its next commit starts the WAL
 * over. The WAL stays about as large as with SQLite's default. Without a checkpoint thread (it failed
 * to start or failed since), the writer's connection checkpoints itself at the same points. Lone
 * appends committed on the calling thread (calling-thread-commit.ts) keep SQLite's automatic
 * checkpoint on their connection.
 */
const { Worker } = require('node:worker_threads');
const { join } = require('node:path');

/** WAL pages committed between checkpoints, as SQLite's automatic checkpoint has it. */
const CHECKPOINT_EVERY = 1000;
const PAGE_SIZE = 4096;
/** Pages a commit writes beside its rows' own: the leaf pages of the table and of its index it changed, and one more. */
const PAGES_PER_COMMIT = 3;

/**
 * The WAL pages `commits` commits of `characters` characters of rows write, about: SQLite does not
 * tell a connection how many frames its commits appended.
 */
const pagesWritten = (characters, commits) => Math.ceil(characters / PAGE_SIZE) + commits * PAGES_PER_COMMIT;

const CHECKPOINT_THREAD = join(__dirname, 'checkpoint-thread.js');

class WalCheckpoints {
  /** `db`: the writer's connection; `path`: the store's file, for the checkpoint thread's own connection. */
  constructor(db, path, every = CHECKPOINT_EVERY) {
    this.db = db;
    this.every = every;
    this.pagesSince = 0;
    this.copying = false;
    this.thread = undefined;
    this.closed = undefined;
    db.pragma('wal_autocheckpoint = 0');
    try {
      const thread = new Worker(CHECKPOINT_THREAD, { workerData: { path }, execArgv: [] });
      thread.on('message', (message) => this.received(message));
      thread.on('error', () => this.withoutThread());
      thread.on('exit', () => {
        this.withoutThread();
        if (this.closed !== undefined) this.closed();
      });
      this.thread = thread;
    } catch {
      this.thread = undefined;
    }
    // What an earlier process committed and did not copy (all of it, if it was killed) is copied first.
    this.startCheckpoint();
  }

  /** Counts `commits` of `characters` characters of rows committed by the writer; starts a checkpoint once enough are. */
  committed(characters, commits) {
    this.pagesSince += pagesWritten(characters, commits);
    if (this.pagesSince < this.every || this.copying) return;
    this.pagesSince = 0;
    this.startCheckpoint();
  }

  startCheckpoint() {
    if (this.thread === undefined) {
      this.checkpointHere();
      return;
    }
    this.copying = true;
    this.thread.postMessage({ kind: 'checkpoint' });
  }

  received(message) {
    this.copying = false;
    if (message.kind === 'checkpointed') {
      // After the group commit in progress, if any: what it and the others since wrote is all that is left to copy.
      setImmediate(() => this.checkpointHere());
      return;
    }
    this.withoutThread();
    this.checkpointHere();
  }

  checkpointHere() {
    if (!this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Another connection holds the checkpoint, or this one cannot run one now: the next one copies these frames.
    }
  }

  /** From now on the writer's connection checkpoints itself; a thread still running (it failed to open the file) is stopped. */
  withoutThread() {
    const thread = this.thread;
    this.thread = undefined;
    this.copying = false;
    if (thread !== undefined) thread.terminate().catch(() => undefined);
  }

  /** Stops the checkpoint thread (after the checkpoint in progress, if any); the writer's connection closes after it. */
  close() {
    const thread = this.thread;
    if (thread === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.closed = resolve;
      thread.postMessage({ kind: 'close' });
    });
  }
}

/** Characters of the rows in `appends` (the flat form decodeAppends reads): what the store writes of them, about. */
const rowCharacters = (flat) => {
  let characters = 0;
  for (let index = 0; index < flat.length; index += 1) {
    const item = flat[index];
    if (typeof item === 'string') characters += item.length;
  }
  return characters;
};

module.exports = { WalCheckpoints, rowCharacters };
