/** Latency samples in milliseconds, summarized. */
export type LatencySummary = { readonly samples: number; readonly p50: number; readonly p99: number; readonly mean: number };

export const percentile = (sorted: readonly number[], fraction: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
};

export const summarize = (samplesMs: readonly number[]): LatencySummary => {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { samples: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean };
};

export const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
