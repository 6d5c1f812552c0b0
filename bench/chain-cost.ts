/**
 * What the hash chain costs an append, apart from the engine: N events appended to a SQLite store by
 * 64 concurrent writers (one stream each, one event per append at its exact revision, as the port's
 * appends are, the data serialised canonically and digested once, as the engine's aggregates do), through the chain
 * and without it, in alternating rounds on the same machine.
 * `npx tsx bench/chain-cost.ts [events]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainedEventStore, SEAL_EVERY } from '../adapters/event-store/chained-event-store';
import { canonicalJson } from '../domain/integrity/canonical-json';
import { dataDigest } from '../domain/integrity/chain';
import type { EventStore } from '../domain/ports/event-store';
import { MemoryEventStore } from '../adapters/event-store/memory/memory-event-store';
import { openBenchStore } from './support/world';

const WRITERS = 64;
const ROUNDS = Number(process.env.ROUNDS ?? 7);

const payload = (writer: number, revision: number) => ({
  type: 'ToolActionAdmitted',
  invocation_action_instance_id: `participant.autonomous-execution.participant-behavior:participant.behavior.agent-${writer}:1`,
  action_instance_id: `participant.autonomous-execution.participant-behavior:participant.behavior.agent-${writer}:1:tool=${revision}`,
  tool_call_id: `call-${revision}`,
  admission_ordinal: revision,
  at: '2026-04-11T10:00:00.000Z',
  request: {
    tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
    action_contract_address: 'participant.behavior-specification.participant-behavior.action-contract.portal-client',
    arguments_digest: 'sha256:0f343b0931126a20f133d67c2b018a3b8f2a1b8d6f1ef1c7b6e1f0a58a3b5e00',
  },
});

type Measured = { readonly ms: number; readonly cpuMs: number };

const appendAll = async (store: EventStore, events: number): Promise<Measured> => {
  const perWriter = Math.ceil(events / WRITERS);
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let revision = 0; revision < perWriter; revision++) {
        const data = payload(writer, revision);
        // As the engine's aggregates append: the data serialised once, canonically, and digested once (for the id).
        const dataJson = canonicalJson(data);
        const digest = dataDigest(data.type, dataJson);
        const event = { id: `e-${writer}-${digest.slice(0, 16)}`, type: data.type, data, dataJson, dataJsonCanonical: true, dataDigest: digest };
        const result = await store.append(`invocation-w${writer}`, [event], {
          expectedRevision: revision === 0 ? 'no_stream' : BigInt(revision - 1),
        });
        if (result.kind !== 'appended') throw new Error(JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: (used.user + used.system) / 1000 };
};

const once = async (chained: boolean, events: number, memory: boolean): Promise<Measured> => {
  const dir = mkdtempSync(join(tmpdir(), 'raes-chain-cost-'));
  const plain = memory ? new MemoryEventStore() : openBenchStore(join(dir, 'events.sqlite'));
  const store = chained ? new ChainedEventStore(plain, SEAL_EVERY, true) : plain;
  try {
    return await appendAll(store, events);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

const median = (list: readonly number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const main = async (): Promise<void> => {
  const events = Number(process.argv[2] ?? 20_000);
  for (const memory of (process.env.STORES ?? 'memory,sqlite').split(',').map((name) => name === 'memory')) {
    await once(false, 2_000, memory); // warm up
    await once(true, 2_000, memory);
    const plain: Measured[] = [];
    const chained: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await once(false, events, memory));
      chained.push(await once(true, events, memory));
    }
    const wall = [median(plain.map((m) => m.ms)), median(chained.map((m) => m.ms))] as const;
    const cpu = [median(plain.map((m) => m.cpuMs)), median(chained.map((m) => m.cpuMs))] as const;
    const rate = (ms: number): string => `${Math.round((events / ms) * 1000).toLocaleString('en-US')}/s`;
    console.log(
      `${memory ? 'memory' : 'sqlite'}: ${events} events, ${WRITERS} writers, median of ${ROUNDS}: ` +
        `plain ${wall[0].toFixed(0)} ms (${rate(wall[0])}), chained ${wall[1].toFixed(0)} ms (${rate(wall[1])}): chain costs ${((1 - wall[0] / wall[1]) * 100).toFixed(1)}% of the rate; ` +
        `CPU (all threads) ${(cpu[0] * 1000 / events).toFixed(1)} us/event plain, ${(cpu[1] * 1000 / events).toFixed(1)} us/event chained`,
    );
  }
};

void main();
