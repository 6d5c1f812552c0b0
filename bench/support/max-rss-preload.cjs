// Preloaded into a command the benchmark runs: on exit, writes the process's peak resident set size
// (kilobytes) to file descriptor 3, which the benchmark reads.
const { writeSync } = require('node:fs');
process.on('exit', () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS));
  } catch {
    // Not run by the benchmark: nothing to report to.
  }
});
