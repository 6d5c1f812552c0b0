/**
 * Appends to an SQLite event store from its own process, for the multi-process specs.
 * Usage: append-child.ts <db path> <ack file> <name> <writers> <appends per writer | 'forever'> <shared stream?>
 * Each writer appends triples of events; after each append resolves, one line "<stream> <revision>" is
 * written synchronously to the ack file, so a parent that kills this process knows what was acknowledged.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { openSqliteEventStore } from '../../../../../adapters/event-store/sqlite/sqlite-event-store';
import type { ExpectedRevision } from '../../../../../domain/ports/event-store';

const [dbPath, ackPath, name, writersArg, appendsArg, sharedStream] = process.argv.slice(2);
const opened = openSqliteEventStore({ path: dbPath!, busyTimeoutMs: 10_000 });
if (opened.kind === 'storage_failure') {
  process.stderr.write(`${opened.reason}\n`);
  process.exit(2);
}
const store = opened;
const ackFd = openSync(ackPath!, 'a');
const appends = appendsArg === 'forever' ? Number.POSITIVE_INFINITY : Number(appendsArg);

const writer = async (index: number): Promise<void> => {
  const stream = sharedStream ?? `${name}-w${index}`;
  // On a shared stream the first try is blind; after a conflict the writer retries at the revision it was told.
  let expected: ExpectedRevision = sharedStream === undefined ? 'no_stream' : 0n;
  for (let appendNo = 0; appendNo < appends; ) {
    const ids = [0, 1, 2].map((part) => `${name}-w${index}-${appendNo}-${part}`);
    const result = await store.append(
      stream,
      ids.map((id, part) => ({ id, type: 'Appended', data: { writer: `${name}-w${index}`, append: appendNo, part } })),
      { expectedRevision: expected },
    );
    if (result.kind === 'version_conflict') {
      expected = result.actual;
      continue;
    }
    if (result.kind === 'storage_failure') {
      process.stderr.write(`${result.reason}\n`);
      process.exit(3);
    }
    writeSync(ackFd, `${stream} ${result.nextExpectedRevision}\n`);
    expected = result.nextExpectedRevision;
    appendNo += 1;
  }
};

const main = async (): Promise<void> => {
  await Promise.all(Array.from({ length: Number(writersArg) }, (_, index) => writer(index)));
  closeSync(ackFd);
  await store.close();
};

void main();
