/**
 * Event-store benchmark (npm run bench:store): the disk's fsync floor F, a raw better-sqlite3 commit,
 * the SQLite adapter's single-append latency as a multiple of F, and the throughput of tool-action-sized
 * appends (3 events) with 1, 16 and 64 concurrent writers. Runs in a temp dir, never in esdata/.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventToAppend } from '../domain/ports/event-store';
import { openSqliteEventStore, type SqliteEventStore } from '../adapters/event-store/sqlite/sqlite-event-store';
import { measureFsyncLatency } from './support/fsync-baseline';
import { measureSqliteCommitLatency } from './support/sqlite-baseline';
import { elapsedMs, summarize } from './support/stats';
import { ms, printTable } from './support/table';

const TARGET_SINGLE_APPEND_P50_IN_F = 2;
const TARGET_EVENTS_PER_SECOND_AT_64 = 30_000;
const THROUGHPUT_SECONDS = 3;

/** Three events shaped like one tool action's admission, dispatch and settlement. */
const toolActionEvents = (writer: number, ordinal: number): EventToAppend[] => {
  const actionId = `policy-bench:participant-${writer}:1:tool=${ordinal}`;
  const common = {
    action_instance_id: actionId,
    tool_call_id: `call-${writer}-${ordinal}`,
    tool_affordance_address: 'participant.behavior-specification.bench.tool-affordance.search',
    action_contract_address: 'participant.action-contract.search',
    observation_boundary_address: 'participant.observation-boundary.web',
    target_addresses: ['provision.node.n1.service.search'],
    execution_scope_ref: 'participant.autonomous-execution.bench',
    execution_generation: 1,
  };
  return [
    { id: `${actionId}:admitted`, type: 'ToolActionAdmitted', data: { ...common, admission_ordinal: ordinal } },
    { id: `${actionId}:dispatched`, type: 'ToolActionDispatched', data: { action_instance_id: actionId } },
    {
      id: `${actionId}:completed`,
      type: 'ToolActionCompleted',
      data: { ...common, status: 'succeeded', evidence_refs: ['provision.content.page-1'], observation_point: 'time.clock.c@segment=1,tick=3' },
    },
  ];
};

const openStore = (dir: string, name: string): SqliteEventStore => {
  const opened = openSqliteEventStore({ path: join(dir, `${name}.sqlite`) });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};

/** One append at a time, each with the exact expected revision, as a command handler appends. */
const measureSingleAppend = async (dir: string, warmup: number, samples: number) => {
  const store = openStore(dir, 'single');
  const latencies: number[] = [];
  let expected: bigint | 'no_stream' = 'no_stream';
  for (let ordinal = 0; ordinal < warmup + samples; ordinal += 1) {
    const start = process.hrtime.bigint();
    const result = await store.append('single', toolActionEvents(0, ordinal), { expectedRevision: expected });
    if (ordinal >= warmup) latencies.push(elapsedMs(start));
    if (result.kind !== 'appended') throw new Error(`append failed: ${result.kind}`);
    expected = result.nextExpectedRevision;
  }
  await store.close();
  return summarize(latencies);
};

const measureThroughput = async (dir: string, writers: number) => {
  const store = openStore(dir, `throughput-${writers}`);
  const deadline = Date.now() + THROUGHPUT_SECONDS * 1000;
  let events = 0;
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      let expected: bigint | 'no_stream' = 'no_stream';
      for (let ordinal = 0; Date.now() < deadline; ordinal += 1) {
        const appendStart = process.hrtime.bigint();
        const result = await store.append(`invocation-${writer}`, toolActionEvents(writer, ordinal), {
          expectedRevision: expected,
        });
        latencies.push(elapsedMs(appendStart));
        if (result.kind !== 'appended') throw new Error(`append failed: ${JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
        expected = result.nextExpectedRevision;
        events += 3;
      }
    }),
  );
  const seconds = elapsedMs(start) / 1000;
  await store.close();
  return { writers, eventsPerSecond: events / seconds, latency: summarize(latencies) };
};

const main = async (): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), 'raes-store-bench-'));
  try {
    process.stdout.write(`event-store benchmark in ${dir} (node ${process.version})\n\n`);
    const fsync = measureFsyncLatency(dir);
    const sqlite = measureSqliteCommitLatency(dir);
    const single = await measureSingleAppend(dir, 100, 500);
    const F = fsync.p50;
    printTable(
      ['measure', 'p50', 'p99', 'p50 / F', 'p99 / F'],
      [
        ['F: 4 KiB write + fdatasync', ms(fsync.p50), ms(fsync.p99), '1.00', (fsync.p99 / F).toFixed(2)],
        ['better-sqlite3 1-row commit (WAL, FULL)', ms(sqlite.p50), ms(sqlite.p99), (sqlite.p50 / F).toFixed(2), (sqlite.p99 / F).toFixed(2)],
        ['adapter single 3-event append', ms(single.p50), ms(single.p99), (single.p50 / F).toFixed(2), (single.p99 / F).toFixed(2)],
      ],
    );
    process.stdout.write('\n');
    const throughput = [];
    for (const writers of [1, 16, 64]) throughput.push(await measureThroughput(dir, writers));
    printTable(
      ['concurrent writers', 'events/s', 'appends/s', 'append p50', 'append p99'],
      throughput.map((row) => [
        String(row.writers),
        Math.round(row.eventsPerSecond).toLocaleString('en-US'),
        Math.round(row.eventsPerSecond / 3).toLocaleString('en-US'),
        ms(row.latency.p50),
        ms(row.latency.p99),
      ]),
    );
    const singleInF = single.p50 / F;
    const at64 = throughput[throughput.length - 1]!.eventsPerSecond;
    process.stdout.write(
      `\ntargets: single append p50 <= ${TARGET_SINGLE_APPEND_P50_IN_F} F: ${singleInF.toFixed(2)} F, ` +
        `${singleInF <= TARGET_SINGLE_APPEND_P50_IN_F ? 'met' : 'MISSED'}; ` +
        `64 writers >= ${TARGET_EVENTS_PER_SECOND_AT_64.toLocaleString('en-US')} events/s: ` +
        `${Math.round(at64).toLocaleString('en-US')}, ${at64 >= TARGET_EVENTS_PER_SECOND_AT_64 ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

void main();
