import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { fillLinkedStore, rawReplay } from '../replay.bench';
import type { FigureResult } from '../support/figure';
import { progress } from '../support/progress';
import { scaledTargetMs } from '../support/scaled-target';
import { elapsedMs } from '../support/stats';

/**
 * `raes-tools audit` of a data dir holding the replay benchmark's history, from a cold start: a new
 * process (the CLI as `npm run raes-tools` runs it), no views file, so it catches every view up inside
 * the figure, verifies and prints the whole history. Timed from spawn to exit; its peak RSS is read
 * from the process itself. Beside it, in turns: raw better-sqlite3 iterate() + JSON.parse of the same
 * rows in this process, and the same CLI answering --help (what starting it costs alone).
 */

const TARGET_MS = 10_000;
/** The history the target is set for; `--quick` audits a smaller one. */
const FULL_EVENTS = 1_000_000;
const TARGET_RSS_MB = 256;
const ROUNDS = 2;
const QUICK_ROUNDS = 1;
const CLI = join(__dirname, '../../adapters/cli/main.ts');
const PRELOAD = join(__dirname, '../support/max-rss-preload.cjs');

type CommandRun = { ms: number; maxRssMb: number; exitCode: number | null };

/** Runs the CLI with `args`, its output discarded, and reports its time and peak RSS. */
const runCli = (args: readonly string[]): Promise<CommandRun> =>
  new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--require', PRELOAD, '--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let reported = '';
    let stderr = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => (reported += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const ms = elapsedMs(start);
      const kilobytes = Number(reported);
      if (!Number.isFinite(kilobytes) || kilobytes <= 0) reject(new Error(`raes-tools ${args.join(' ')} reported no peak RSS (exit ${exitCode}): ${stderr}`));
      else resolve({ ms, maxRssMb: kilobytes / 1024, exitCode });
    });
  });

/** The file as an engine's writer leaves it on a clean close: in rollback-journal mode, so readers open it in place. */
const leaveAsWriterCloses = (path: string): void => {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = DELETE');
  db.close();
};

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const auditFigure = async (quick: boolean): Promise<FigureResult> => {
  const events = quick ? 100_000 : FULL_EVENTS;
  const rounds = quick ? QUICK_ROUNDS : ROUNDS;
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-audit-'));
  try {
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    const eventsPath = join(dataDir, 'events.sqlite');
    progress(`audit: filling ${events.toLocaleString('en-US')} events`);
    // Linked and sealed as an engine writer leaves its history: the audit verifies every link and seal.
    const written = await fillLinkedStore(eventsPath, events);
    leaveAsWriterCloses(eventsPath);
    rawReplay(eventsPath); // warms the page cache, for the baseline and the audit alike
    const audits: CommandRun[] = [];
    const starts: CommandRun[] = [];
    const raws: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      progress(`audit: round ${round} of ${rounds}: raw read, raes-tools --help, raes-tools audit (cold)`);
      raws.push(rawReplay(eventsPath).ms);
      starts.push(await runCli(['--help']));
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `views.sqlite${suffix}`), { force: true });
      const audit = await runCli(['audit', '--data-dir', dataDir]);
      if (audit.exitCode !== 0) throw new Error(`raes-tools audit exited ${audit.exitCode} on the benchmark's history`);
      audits.push(audit);
    }
    const ms = median(audits.map((run) => run.ms));
    const rss = Math.max(...audits.map((run) => run.maxRssMb));
    const raw = median(raws);
    const start = median(starts.map((run) => run.ms));
    const startRss = Math.max(...starts.map((run) => run.maxRssMb));
    // --quick judges the time that grows with history in proportion to it, the CLI's start as it is;
    // the memory bound is the same at any size.
    const targetMs = scaledTargetMs(TARGET_MS, start, written, FULL_EVENTS);
    return {
      figure: 'audit',
      title: `raes-tools audit of ${written.toLocaleString('en-US')} events from a cold start (no views), a new process`,
      rows: [
        { measure: 'baseline: raw iterate() + JSON.parse of every row', p50: raw, p99: null, unit: 'ms', relative: '1.00 x' },
        { measure: 'raes-tools --help (starting the CLI)', p50: start, p99: null, unit: 'ms', relative: `peak RSS ${startRss.toFixed(0)} MB` },
        { measure: 'raes-tools audit, cold', p50: ms, p99: null, unit: 'ms', relative: `${(ms / raw).toFixed(1)} x raw; peak RSS ${rss.toFixed(0)} MB` },
      ],
      target: `<= ${Math.round(targetMs).toLocaleString('en-US')} ms and peak RSS <= ${TARGET_RSS_MB} MB`,
      measured: `${Math.round(ms).toLocaleString('en-US')} ms, peak RSS ${rss.toFixed(0)} MB`,
      met: ms <= targetMs && rss <= TARGET_RSS_MB,
      notes: [
        `median time and largest peak RSS of ${rounds} runs, each with the views file removed first; the output (the whole history) goes to /dev/null`,
        'the CLI runs from source through tsx, as npm run raes-tools does: its start includes compiling the modules it loads (the --help row)',
        "the chain's check runs on a thread of its own beside the pass, as every audit of a SQLite store of 50,000 events or more does; the thread's memory is in the peak RSS",
        ...(written < FULL_EVENTS
          ? [`at ${written.toLocaleString('en-US')} events the target is the CLI's start (the --help row) plus ${TARGET_MS.toLocaleString('en-US')} ms less that start, in proportion to the history: what an audit exactly at the 1M-event target takes at this size`]
          : []),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
