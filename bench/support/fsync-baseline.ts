import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { elapsedMs, summarize, type LatencySummary } from './stats';

/**
 * F, the floor any durable append pays on this disk: write 4 KiB and fdatasync it, `samples` times,
 * appending to one file as a log does.
 */
export const measureFsyncLatency = (dir: string, samples = 300): LatencySummary => {
  const path = join(dir, 'fsync-baseline.bin');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 0x61);
  const latencies: number[] = [];
  try {
    for (let index = 0; index < samples; index += 1) {
      const start = process.hrtime.bigint();
      writeSync(fd, block);
      fdatasyncSync(fd);
      latencies.push(elapsedMs(start));
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return summarize(latencies);
};
