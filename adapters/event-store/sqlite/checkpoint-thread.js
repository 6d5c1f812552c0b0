'use strict';
/**
 * The SQLite store's checkpoint thread: copies committed WAL frames into the database file, on a
 * connection of its own, when the writer thread asks (wal-checkpoints.js). A PASSIVE checkpoint takes
 * no lock a writer waits for, so the writer thread goes on committing meanwhile. It is sent
 * `{ kind: 'checkpoint' }` and `{ kind: 'close' }`; it answers `{ kind: 'checkpointed' }` or
 * `{ kind: 'unavailable', reason }`. Plain CommonJS, like the writer thread.
 */
const { parentPort, workerData } = require('node:worker_threads');
const BetterSqlite3 = require('better-sqlite3');
const { describeError } = require('./append-batch');

let db;
try {
  db = new BetterSqlite3(workerData.path);
  // A checkpoint syncs the WAL before it copies frames and the database file after: as every writer of the store does.
  db.pragma('synchronous = FULL');
} catch (error) {
  if (db !== undefined && db.open) db.close();
  db = undefined;
  parentPort.postMessage({ kind: 'unavailable', reason: `opening the checkpoint connection failed: ${describeError(error)}` });
}

parentPort.on('message', (message) => {
  if (message.kind === 'close') {
    // Also when the connection never opened: the writer waits for this thread's exit.
    if (db !== undefined) db.close();
    db = undefined;
    parentPort.close();
    return;
  }
  if (db === undefined) {
    parentPort.postMessage({ kind: 'unavailable', reason: 'the checkpoint connection is not open' });
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ kind: 'checkpointed' });
  } catch (error) {
    parentPort.postMessage({ kind: 'unavailable', reason: `checkpointing failed: ${describeError(error)}` });
  }
});
