'use strict';
/**
 * The SQLite store's writer thread: it owns the write connection, so a COMMIT and its fsync block this
 * thread, not the one deciding the next calls. Appends arrive in messages of one or more; every append
 * that arrived while the last transaction was committing is written by the next one (the group grows
 * with load), and the outcomes go back only after COMMIT has returned. Plain CommonJS: Node loads it as
 * it is, under any TypeScript loader or none. Its messages: WriterMessage in worker-writer.ts.
 */
const { parentPort, workerData } = require('node:worker_threads');
const BetterSqlite3 = require('better-sqlite3');
const { AppendBatchWriter, decodeAppends, describeError, encodeOutcomes } = require('./append-batch');
const { WalCheckpoints, rowCharacters } = require('./wal-checkpoints');

let db;
let writer;
let checkpoints;
try {
  db = new BetterSqlite3(workerData.path);
  // The same per-connection settings as prepareConnection in schema.ts; the file is prepared already.
  db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
  db.pragma('synchronous = FULL');
  writer = new AppendBatchWriter(db);
  checkpoints = new WalCheckpoints(db, workerData.path);
} catch (error) {
  if (db !== undefined && db.open) db.close();
  db = undefined;
  parentPort.postMessage({ kind: 'unavailable', reason: `opening the writer connection failed: ${describeError(error)}` });
}

let queued = [];
let queuedCharacters = 0;
let messages = 0;
let scheduled = false;
let closing = false;

const writeQueued = () => {
  scheduled = false;
  if (messages > 0) {
    const appends = queued;
    const count = messages;
    const characters = queuedCharacters;
    queued = [];
    queuedCharacters = 0;
    messages = 0;
    const { codes, reasons } = encodeOutcomes(writer.write(appends));
    parentPort.postMessage({ kind: 'written', messages: count, codes, reasons }, [codes.buffer]);
    checkpoints.committed(characters, 1);
  }
  if (closing) {
    const closingDb = db;
    db = undefined;
    void checkpoints.close().then(() => {
      closingDb.close();
      parentPort.postMessage({ kind: 'closed' });
    });
  }
};

parentPort.on('message', (message) => {
  if (db === undefined) return;
  if (message.kind === 'append') {
    decodeAppends(message.appends, queued);
    queuedCharacters += rowCharacters(message.appends);
    messages += 1;
  } else if (message.kind === 'close') {
    closing = true;
  }
  // Messages already waiting are all delivered before an immediate runs, so they share one transaction.
  if (!scheduled) {
    scheduled = true;
    setImmediate(writeQueued);
  }
});
