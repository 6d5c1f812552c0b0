import type { Database } from 'better-sqlite3';

/** An expected revision as the writer gets it: an exact revision is a number. */
export type WireExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

/** An event ready to insert: data and metadata already JSON. */
export type WireEvent = {
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string | null;
};

export type AppendRequest = {
  readonly stream: string;
  readonly expected: WireExpectedRevision;
  readonly events: readonly WireEvent[];
};

/** `actual` is the stream's last revision, NO_STREAM (-1) when it has none. */
export type AppendOutcome =
  | { readonly kind: 'appended'; readonly next: number; readonly position: number }
  | { readonly kind: 'version_conflict'; readonly actual: number }
  | { readonly kind: 'storage_failure'; readonly reason: string };

export declare const NO_STREAM: -1;

export declare class AppendBatchWriter {
  constructor(db: Database, now?: () => number);
  /** Writes `appends` in one transaction; returns one outcome per append, in order, after COMMIT. */
  write(appends: readonly AppendRequest[]): AppendOutcome[];
}

/** Appends flattened for the writer thread: see decodeAppends. */
export type FlatAppends = (string | number | null)[];

export declare const APPENDED: 0;
export declare const CONFLICT: 1;
export declare const FAILED: 2;

/** Outcomes flattened for the way back: see encodeOutcomes. */
export type FlatOutcomes = { readonly codes: Float64Array; readonly reasons: readonly string[] };

export declare const decodeAppends: (flat: FlatAppends, into: AppendRequest[]) => AppendRequest[];
export declare const encodeOutcomes: (outcomes: readonly AppendOutcome[]) => FlatOutcomes;
export declare const describeError: (error: unknown) => string;
