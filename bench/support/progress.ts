/** Progress of long steps, on stderr so stdout keeps only the tables. */
export const progress = (message: string): void => {
  process.stderr.write(`  .. ${message}\n`);
};

/** Reports `done` of `total` at most every `everyMs`. */
export const progressEvery = (label: string, total: number, everyMs = 2000): ((done: number) => void) => {
  let last = Date.now();
  return (done) => {
    const now = Date.now();
    if (now - last < everyMs && done < total) return;
    last = now;
    process.stderr.write(`  .. ${label}: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}\n`);
  };
};
