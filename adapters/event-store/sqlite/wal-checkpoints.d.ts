import type { Database } from 'better-sqlite3';

/** When the writer's WAL is copied into the database file, by a checkpoint thread or, without one, by the writer's connection. */
export declare class WalCheckpoints {
  constructor(db: Database, path: string, every?: number);
  /** Counts `commits` of `characters` characters of rows committed by the writer; starts a checkpoint once enough are. */
  committed(characters: number, commits: number): void;
  /** Stops the checkpoint thread (after the checkpoint in progress, if any). */
  close(): Promise<void>;
}

/** Characters of the rows in `appends` (the flat form decodeAppends reads). */
export declare const rowCharacters: (flat: readonly (string | number | null)[]) => number;
