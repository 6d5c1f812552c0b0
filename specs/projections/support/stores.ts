import BetterSqlite3 from 'better-sqlite3';
import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { openSqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import type { EventStore } from '../../../domain/ports/event-store';
import { sqliteViews, type SqliteViews } from '../../../adapters/views/sqlite';

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

/** A fresh SQLite views database in memory, through the views port. */
export const openViews = (): SqliteViews => sqliteViews(new BetterSqlite3(':memory:'));
