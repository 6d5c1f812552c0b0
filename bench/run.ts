/**
 * The engine's benchmarks (npm run bench [-- figures...] [--quick] [--rebuild-events N]): one table per
 * figure, each beside its baseline measured in the same run, with its target and verdict; the same is
 * written to bench/results.json. Runs in temp dirs, never in esdata/.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { admissionFigure } from './figures/admission';
import { auditFigure } from './figures/audit';
import { heapFigure } from './figures/heap';
import { postgresThroughputFigure } from './figures/postgres-throughput';
import { rebuildFigure } from './figures/rebuild';
import { recoveryFigure } from './figures/recovery';
import { throughputFigure } from './figures/throughput';
import { toolActionFigure } from './figures/tool-action';
import { viewLagFigure } from './figures/view-lag';
import { formatValue, type FigureResult } from './support/figure';
import { printTable } from './support/table';

interface Options {
  readonly quick: boolean;
  readonly rebuildEvents: number;
  readonly figures: readonly FigureName[];
}

const FIGURES = ['admission', 'tool-action', 'throughput', 'postgres', 'rebuild', 'recovery', 'view-lag', 'heap', 'audit'] as const;
type FigureName = (typeof FIGURES)[number];

const DEFAULT_REBUILD_EVENTS = 300_000;
const QUICK_REBUILD_EVENTS = 50_000;

const HELP = `usage: npm run bench -- [figure...] [--quick] [--rebuild-events N] [--help]

figures (all by default, in this order):
  admission     admission decision in memory (decode + rules), p50 <= 3 us
  tool-action   one tool action on SQLite through the real port (admitAndDispatch; admit, then dispatch), p50 <= 3.5 F for each;
                the hash chain <= 10% of a call
  throughput    64 concurrent invocations (admitAndDispatch + complete), >= 0.8 x the store alone, p99 <= 25 F;
                the hash chain <= 10% of the rate
  postgres      the same on the postgres store (a server started in a temp dir), >= 0.5 x raw pg inserts of its rows
  rebuild       participant history rebuild, >= 0.8 x its floor (raw iterate(), parsing what it parses);
                every view from empty, >= 0.5 x raw iterate() + JSON.parse
  recovery      restart after a SIGKILL with 10,000 open invocations over 1M and 3M events, <= 1 s;
                with the views file lost, <= 2 s
  view-lag      live views: an event durable -> visible in every view, p99 <= 50 ms
  heap          heap per open invocation through the runtime manager, <= 1 KiB (needs --expose-gc; the runner re-launches itself)
  audit         raes-tools audit of 1M events from a cold start, a new process, <= 10 s and peak RSS <= 256 MB

options:
  --quick             smaller samples and sizes, under a minute (recovery: 1,000 open over 30k / 90k
                      events; audit: 50k events); a time target counts what does not grow with size
                      (a restart with 10 open, the CLI's start) as measured, the rest in proportion
  --rebuild-events N  events of history for the rebuild figure (default ${DEFAULT_REBUILD_EVENTS.toLocaleString('en-US')},
                      quick ${QUICK_REBUILD_EVENTS.toLocaleString('en-US')}; --rebuild-events 1000000 for the 1M figure)
F is a 4 KiB write + fdatasync on the temp dir's disk, measured in the same run.
Results: stdout (tables), stderr (progress), bench/results.json.`;

const parseOptions = (args: readonly string[]): Options | string => {
  let quick = false;
  let rebuildEvents: number | undefined;
  const figures: FigureName[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') return HELP;
    if (arg === '--quick') quick = true;
    else if (arg === '--rebuild-events') {
      const value = Number(args[++i]);
      if (!Number.isInteger(value) || value < 1000) return `expected an integer >= 1000 after --rebuild-events, got ${args[i] ?? 'nothing'}`;
      rebuildEvents = value;
    } else if ((FIGURES as readonly string[]).includes(arg)) figures.push(arg as FigureName);
    else return `unknown argument '${arg}': expected one of ${FIGURES.join(', ')}, --quick, --rebuild-events N, --help`;
  }
  return {
    quick,
    rebuildEvents: rebuildEvents ?? (quick ? QUICK_REBUILD_EVENTS : DEFAULT_REBUILD_EVENTS),
    figures: figures.length === 0 ? FIGURES : figures,
  };
};

const runFigure = (name: FigureName, options: Options): FigureResult | Promise<FigureResult> => {
  switch (name) {
    case 'admission':
      return admissionFigure(options.quick);
    case 'tool-action':
      return toolActionFigure(options.quick);
    case 'throughput':
      return throughputFigure(options.quick);
    case 'postgres':
      return postgresThroughputFigure(options.quick);
    case 'rebuild':
      return rebuildFigure(options.rebuildEvents);
    case 'recovery':
      return recoveryFigure(options.quick);
    case 'view-lag':
      return viewLagFigure(options.quick);
    case 'heap':
      return heapFigure(options.quick);
    case 'audit':
      return auditFigure(options.quick);
  }
};

/** A figure that threw: reported as missed with its error, so the figures after it still run. */
const failedFigure = (name: FigureName, error: unknown): FigureResult => ({
  figure: name,
  title: `${name}: the figure could not be measured`,
  rows: [],
  target: 'its own',
  measured: `it failed with ${error instanceof Error ? error.message : String(error)}`,
  met: false,
  failed: true,
  notes: ['run the figure alone (`npm run bench -- ' + name + '`) to see whether the failure repeats'],
});

const printFigure = (result: FigureResult): void => {
  process.stdout.write(`\n== ${result.title}\n`);
  printTable(
    ['measure', 'p50', 'p99', 'vs baseline'],
    result.rows.map((row) => [row.measure, formatValue(row.p50, row.unit), formatValue(row.p99, row.unit), row.relative]),
  );
  process.stdout.write(`target ${result.target}: ${result.measured}, ${result.met ? 'met' : 'MISSED'}\n`);
  for (const note of result.notes) process.stdout.write(`  note: ${note}\n`);
};

const machine = () => ({
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  memory_gib: Math.round(totalmem() / 2 ** 30),
});

const main = async (): Promise<void> => {
  const options = parseOptions(process.argv.slice(2));
  if (typeof options === 'string') {
    const help = options === HELP;
    (help ? process.stdout : process.stderr).write(`${options}\n`);
    process.exitCode = help ? 0 : 2;
    return;
  }
  // The heap figure needs global.gc: re-launch under --expose-gc with the same arguments.
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exitCode = child.status ?? 1;
    return;
  }
  const env = machine();
  process.stdout.write(`raes-tool-actions benchmarks: node ${env.node}, ${env.platform}, ${env.cpus}, ${env.memory_gib} GiB${options.quick ? ', --quick' : ''}\n`);
  const results: FigureResult[] = [];
  for (const name of options.figures) {
    process.stderr.write(`[${name}]\n`);
    const result = await Promise.resolve()
      .then(() => runFigure(name, options))
      .catch((error: unknown) => failedFigure(name, error));
    results.push(result);
    printFigure(result);
  }
  if (results.some((result) => result.failed === true)) process.exitCode = 1;
  const missed = results.filter((result) => !result.met).map((result) => result.figure);
  process.stdout.write(`\n${results.length - missed.length} of ${results.length} targets met${missed.length > 0 ? `; missed: ${missed.join(', ')} (see docs/performance.md)` : ''}\n`);
  const path = join(__dirname, 'results.json');
  writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), machine: env, quick: options.quick, rebuild_events: options.rebuildEvents, figures: results }, null, 2)}\n`);
  process.stderr.write(`results written to ${path}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`the benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
