/**
 * A time target at a smaller size (`--quick`) that a run exactly at the full-size target would meet:
 * the part that does not grow with size (`fixedMs`, measured in the same run) plus the rest of the
 * target in proportion. Scaling the whole target instead would fail a small run on its fixed part
 * alone (a process's start, say) where the full run passes. At the full size it is the target itself.
 */
export const scaledTargetMs = (targetMs: number, fixedMs: number, size: number, fullSize: number): number => {
  if (size >= fullSize) return targetMs;
  const fixed = Math.min(Math.max(fixedMs, 0), targetMs);
  return fixed + ((targetMs - fixed) * size) / fullSize;
};
