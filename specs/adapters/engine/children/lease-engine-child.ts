/**
 * One of several engines sharing a PostgreSQL store: takes the leases of the participants it claims
 * (and of any whose lease expired), runs their invocations on a clock driver, and prints to stdout:
 *   TOOK <participant>,...     participants taken over (their recovery is done)
 *   S <invocation id>          an invocation this engine runs (its attempt is durable)
 *   D <action id>              a tool call's dispatch acknowledged
 *   C <action id>              its completion acknowledged
 *   H <action id>              a dispatched call whose tool never answers (from the <hold from>th dispatch on)
 * Usage: lease-engine-child.ts <postgres url> <owner> <claimed participants, comma-separated> <lease ms> [hold from]
 * SIGTERM stops it cleanly (attempts end, leases are released).
 */
import { HarnessRuntime, ParticipantLeases, RuntimeManager } from '../../../../domain/application';
import { openPostgresEventStore } from '../../../../adapters/event-store/postgres/postgres-event-store';
import { LeaseKeeper } from '../../../../adapters/engine/lease-keeper';
import { PORTAL_CLIENT, probeResult } from '../../../../examples/harness/scripted-harness';
import { compiledScenario, manifest } from '../../../domain/application/support/world';

const [url, owner, claimed, leaseMs, holdFrom] = process.argv.slice(2);
if (url === undefined || owner === undefined || claimed === undefined || leaseMs === undefined) {
  throw new Error('usage: lease-engine-child.ts <postgres url> <owner> <claimed participants> <lease ms>');
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Dispatches acknowledged so far: from the `holdFrom`th on, the tool never answers. */
let dispatches = 0;

const main = async (): Promise<void> => {
  const store = openPostgresEventStore({ connectionString: url });
  const compiled = compiledScenario({ extraAgents: 3, maxActionAttempts: 100000, cadenceTicks: 1, failurePolicy: 'continue', maxInFlight: 2 });
  const participants = [...new Set(compiled.policies.flatMap((policy) => policy.participantAddresses))];
  const durationMs = Number(leaseMs);
  const leases = new ParticipantLeases(
    store,
    'shared-episode',
    participants,
    { owner, durationMs, marginMs: Math.floor(durationMs / 3), claims: new Set(claimed.split(',')) },
    () => new Date(),
  );
  const keeper = new LeaseKeeper(leases, Math.floor(durationMs / 4), () => undefined, (taken) => say(`TOOK ${taken.join(',')}`));
  const manager = new RuntimeManager({
    compiled,
    manifest: manifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      say(`S ${request.action_instance_id}`);
      const answer = await port!.admitAndDispatch({
        tool_call_id: 'call-1',
        invocation_action_instance_id: port!.invocation_action_instance_id,
        participant_address: port!.participant_address,
        episode_id: port!.episode_id,
        participant_implementation_ref: port!.participant_implementation_ref,
        tool_affordance_address: PORTAL_CLIENT.tool_affordance_address,
        action_contract_address: PORTAL_CLIENT.action_contract_address,
        observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
        target_addresses: PORTAL_CLIENT.target_addresses,
        execution_scope_ref: port!.execution_scope_ref,
        execution_generation: port!.execution_generation,
      });
      if (!answer.admitted || !answer.accepted) return probeResult(request, []);
      const id = answer.action_instance_id;
      say(`D ${id}`);
      dispatches += 1;
      if (holdFrom !== undefined && dispatches >= Number(holdFrom)) {
        say(`H ${id}`);
        await new Promise(() => undefined);
      }
      // The tool runs a while: a kill lands between dispatch and outcome.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const completed = await port!.complete(id, {
        status: 'succeeded',
        participant_address: port!.participant_address,
        episode_id: port!.episode_id,
        action_instance_id: id,
        action_contract_address: PORTAL_CLIENT.action_contract_address,
        observation_point: port!.observation_point,
      });
      if (completed.accepted) say(`C ${id}`);
      return probeResult(request, []);
    }),
    store,
    episodeId: 'shared-episode',
    clock: () => new Date(),
    ownership: keeper,
  });
  await manager.start();
  await keeper.start(manager);
  say('READY');
  manager.startClock(20);
  process.on('SIGTERM', () => {
    void (async () => {
      await manager.close();
      await keeper.stop();
      await store.close();
      process.exit(0);
    })();
  });
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
