import { createInterface } from 'node:readline';
import { HarnessRuntime, ParticipantLeases, RuntimeManager } from '../../domain/application';
import { openPostgresEventStore } from '../../adapters/event-store/postgres/postgres-event-store';
import { LeaseKeeper } from '../../adapters/engine/lease-keeper';
import { benchManifest, benchScenario, steppingClock, throughChain } from '../support/world';
import { toolCallsHarness } from './port-world';

/**
 * One of the engine processes of the PostgreSQL throughput figure: runs the figure's scenario on a
 * store shared with another engine, holding the leases of the participants it claims (as engines
 * sharing a server store do), and counts tool actions while told to. Protocol on stdin/stdout:
 *   READY                      its leases are taken, its recovery done
 *   GO <ms>       (stdin)      advance the clock for that long, counting
 *   RATE <actions> <ms>        what it did in that time
 * Usage: postgres-engine-child.ts <postgres url> <owner> <claimed participants, comma-separated> <episode> <agents>
 */

const LEASE_MS = 5_000;
const POOL_SIZE = 10;

const main = async (): Promise<void> => {
  const [url, owner, claimed, episode, agents] = process.argv.slice(2);
  if (url === undefined || owner === undefined || claimed === undefined || episode === undefined || agents === undefined) {
    throw new Error('usage: postgres-engine-child.ts <postgres url> <owner> <claimed participants> <episode> <agents>');
  }
  // As run opens it: every engine writer appends through the hash chain and its seals.
  const store = throughChain(openPostgresEventStore({ connectionString: url, poolSize: POOL_SIZE }));
  const compiled = benchScenario({ agents: Number(agents) });
  const participants = [...new Set(compiled.policies.flatMap((policy) => policy.participantAddresses))];
  const leases = new ParticipantLeases(
    store,
    episode,
    participants,
    { owner, durationMs: LEASE_MS, marginMs: Math.floor(LEASE_MS / 3), claims: new Set(claimed.split(',')) },
    () => new Date(),
  );
  const keeper = new LeaseKeeper(leases, Math.floor(LEASE_MS / 4), () => undefined, () => undefined);
  let counting = false;
  let actions = 0;
  const manager = new RuntimeManager({
    compiled,
    manifest: benchManifest(),
    runtime: new HarnessRuntime(
      toolCallsHarness(() => {
        if (counting) actions++;
      }),
    ),
    store,
    episodeId: episode,
    clock: steppingClock(),
    ownership: keeper,
  });
  await manager.start();
  await keeper.start(manager);
  await manager.advance(1); // warm up
  process.stdout.write('READY\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, ms] = line.split(' ');
    if (command !== 'GO') break;
    actions = 0;
    counting = true;
    const start = Date.now();
    const deadline = start + Number(ms);
    while (Date.now() < deadline) await manager.advance(1);
    counting = false;
    process.stdout.write(`RATE ${actions} ${Date.now() - start}\n`);
  }
  await manager.close();
  await keeper.stop();
  await store.close();
};

main().catch((error: unknown) => {
  process.stderr.write(`the engine process failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
