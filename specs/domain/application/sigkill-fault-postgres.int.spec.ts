import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { openPostgresEventStore } from '../../../adapters/event-store/postgres/postgres-event-store';
import { startPostgresServer, type PostgresServer } from '../../adapters/event-store/postgres/support/postgres-server';
import { runSigkillCampaign } from './support/sigkill-campaign';

/**
 * The durability contract under SIGKILL (SPEC.md section 7) on the PostgreSQL store, as
 * sigkill-fault.int.spec.ts checks it on SQLite: the same campaign (support/sigkill-campaign.ts) with
 * the child's events in a PostgreSQL server.
 */
describe('SIGKILL at random moments on PostgreSQL', () => {
  let dir: TempDir;
  let server: PostgresServer;

  beforeAll(async () => {
    dir = makeTempDir('runtime-sigkill-postgres');
    server = await startPostgresServer();
  }, 120_000);

  afterAll(async () => {
    dir.remove();
    await server?.stop();
  }, 60_000);

  it('never forgets an acknowledged call, and recovery stops the schedulers with indeterminate actions', async () => {
    const total = await runSigkillCampaign({
      dir: dir.path,
      openStore: () => openPostgresEventStore({ connectionString: server.url }),
      childArgs: [server.url],
      kills: 6,
      budgetMs: 40_000,
    });
    expect(total.kills).toBeGreaterThanOrEqual(3);
    expect(total.admitted).toBeGreaterThan(0);
    expect(total.dispatched).toBeGreaterThan(0);
    // The holding rounds kill between dispatch and outcome: recovery had indeterminate actions to stop schedulers for.
    expect(total.held).toBeGreaterThan(0);
    expect(total.indeterminate).toBeGreaterThanOrEqual(total.held);
  }, 90_000);
});
