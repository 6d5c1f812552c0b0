import { openSqliteEventStore, type SqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';

export const openSqliteOrThrow = (path: string, pollIntervalMs = 50): SqliteEventStore => {
  const opened = openSqliteEventStore({ path, pollIntervalMs });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};
