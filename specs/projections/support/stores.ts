import BetterSqlite3, { type Database } from 'better-sqlite3';
import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { openSqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import type { EventStore } from '../../../domain/ports/event-store';

/** The stores every projection spec runs against: memory and a real SQLite database. */
export const STORES: readonly [string, () => EventStore][] = [
  ['memory', () => new MemoryEventStore()],
  [
    'sqlite',
    () => {
      const opened = openSqliteEventStore({ path: ':memory:' });
      if (opened.kind === 'storage_failure') throw new Error(opened.reason);
      return opened;
    },
  ],
];

export const openViews = (): Database => new BetterSqlite3(':memory:');
