/**
 * The engine under a fault test: runs many concurrent invocations with tool calls on SQLite until it is
 * killed, printing each acknowledged call to stdout as it returns (after its event is durable):
 *   A <action id>                  admission acknowledged
 *   D <action id>                  dispatch acknowledged
 *   C <action id>                  completion acknowledged
 *   R <invocation id> <call id>    admission refused
 *   H <action id>                  dispatch acknowledged, and the call held: it never completes
 * Usage: fault-child.ts <dir> <extra agents> [<postgres connection string>]
 * With a connection string the events go to that PostgreSQL store; the views stay in <dir>.
 * With FAULT_HOLD_FROM_DISPATCH=n, the n-th acknowledged dispatch and every one after it are held.
 */
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { HarnessRuntime, RuntimeManager, type InvocationToolActionPort } from '../../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../../examples/harness/scripted-harness';
import { openPostgresEventStore } from '../../../../adapters/event-store/postgres/postgres-event-store';
import { compiledScenario, manifest, openSqlite } from '../support/world';
import { openInvocationsIndex } from '../../../../adapters/views/open-invocations-index';

const [dir, extraAgents, postgresUrl] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: fault-child.ts <dir> <extra agents>');

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const holdFrom = Number(process.env.FAULT_HOLD_FROM_DISPATCH ?? Number.POSITIVE_INFINITY);
let dispatches = 0;
const forever = new Promise<never>(() => undefined);

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));

const toolCall = async (port: InvocationToolActionPort, callId: string, affordance: string): Promise<void> => {
  const admitted = await port.admit({
    tool_call_id: callId,
    invocation_action_instance_id: port.invocation_action_instance_id,
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    participant_implementation_ref: port.participant_implementation_ref,
    tool_affordance_address: affordance,
    action_contract_address: PORTAL_CLIENT.action_contract_address,
    observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
    target_addresses: PORTAL_CLIENT.target_addresses,
    execution_scope_ref: port.execution_scope_ref,
    execution_generation: port.execution_generation,
  });
  if (!admitted.admitted) return say(`R ${port.invocation_action_instance_id} ${callId}`);
  const id = admitted.action_instance_id;
  say(`A ${id}`);
  await pause();
  if (Math.random() < 0.2) return; // left undispatched: settles withheld at close
  if (!(await port.dispatch(id)).accepted) return;
  say(`D ${id}`);
  dispatches++;
  if (dispatches >= holdFrom) {
    say(`H ${id}`);
    return forever;
  }
  await pause();
  const completed = await port.complete(id, {
    status: 'succeeded',
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    action_instance_id: id,
    action_contract_address: PORTAL_CLIENT.action_contract_address,
    observation_point: port.observation_point,
  });
  if (completed.accepted) say(`C ${id}`);
};

const main = async (): Promise<void> => {
  const store =
    postgresUrl === undefined ? openSqlite(join(dir, 'events.sqlite')) : openPostgresEventStore({ connectionString: postgresUrl });
  const views = new BetterSqlite3(join(dir, 'views.sqlite'));
  const manager = new RuntimeManager({
    compiled: compiledScenario({ extraAgents: Number(extraAgents ?? '7'), maxActionAttempts: 100000, cadenceTicks: 1, failurePolicy: 'continue' }),
    manifest: manifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      const calls = [0, 1, 2, 3].map((n) => toolCall(port!, `call-${n}`, PORTAL_CLIENT.tool_affordance_address));
      calls.push(toolCall(port!, 'call-unbound', `${PORTAL_CLIENT.tool_affordance_address}-missing`));
      await Promise.all(calls);
      return probeResult(request, []);
    }),
    store,
    openInvocations: openInvocationsIndex(store, views),
    episodeId: 'fault-episode',
    clock: () => new Date(),
  });
  await manager.start();
  // A held call is a promise nothing keeps alive: once every call in flight is held, the event loop would
  // empty and the child exit on its own before the campaign's SIGKILL reaches it. It waits to be killed.
  setInterval(() => undefined, 60_000);
  say('READY');
  for (;;) await manager.advance(1);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
