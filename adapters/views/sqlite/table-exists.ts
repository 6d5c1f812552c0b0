import type { Database } from 'better-sqlite3';

/** Whether the views database holds the table: a query before a projection's first page reads nothing. */
export const tableExists = (db: Database, table: string): boolean =>
  db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;
