/** What one benchmark figure reports: its table (the figure beside its baseline), its target and verdict. */
export interface FigureRow {
  readonly measure: string;
  /** Median and 99th percentile, in the row's unit; rates have no p99 (null). */
  readonly p50: number;
  readonly p99: number | null;
  readonly unit: string;
  /** The row expressed against the figure's baseline (e.g. "2.41 F", "0.93 x raw"); empty for the baseline. */
  readonly relative: string;
}

export interface FigureResult {
  readonly figure: string;
  readonly title: string;
  readonly rows: readonly FigureRow[];
  readonly target: string;
  /** The measured value the target is judged on, as a sentence. */
  readonly measured: string;
  readonly met: boolean;
  /** Why a target is missed, or what the numbers mean. */
  readonly notes: readonly string[];
  /** True when the figure threw instead of measuring (the run exits 1). */
  readonly failed?: boolean;
}

export const formatValue = (value: number | null, unit: string): string => {
  if (value === null) return '';
  if (unit === 'us') return `${value.toFixed(2)} us`;
  if (unit === 'ms') return `${value.toFixed(3)} ms`;
  if (unit === 'B') return `${Math.round(value).toLocaleString('en-US')} B`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
};
