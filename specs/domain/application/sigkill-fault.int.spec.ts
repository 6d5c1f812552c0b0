import { join } from 'node:path';
import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { openSqlite } from './support/world';
import { runSigkillCampaign } from './support/sigkill-campaign';

/**
 * The durability contract under SIGKILL (SPEC.md section 7) on SQLite. A child engine runs many
 * concurrent invocations with tool calls and is killed many times. After each kill, a restarted engine
 * recovers, and then: every acknowledged dispatch is completed or indeterminate (never withheld), every
 * acknowledged admission is present, no refused call is recorded, no action settles twice, and every
 * participant with an indeterminate action has its scheduler stopped (support/sigkill-campaign.ts).
 */
describe('SIGKILL at random moments', () => {
  let dir: TempDir;

  beforeAll(() => {
    dir = makeTempDir('runtime-sigkill');
  });

  afterAll(() => dir.remove());

  it('never forgets an acknowledged call, and recovery stops the schedulers with indeterminate actions', async () => {
    const total = await runSigkillCampaign({ dir: dir.path, openStore: () => openSqlite(join(dir.path, 'events.sqlite')), kills: 12, budgetMs: 40_000 });
    expect(total.kills).toBeGreaterThanOrEqual(5);
    expect(total.admitted).toBeGreaterThan(0);
    expect(total.dispatched).toBeGreaterThan(0);
    // The holding rounds kill between dispatch and outcome: recovery had indeterminate actions to stop schedulers for.
    expect(total.held).toBeGreaterThan(0);
    expect(total.indeterminate).toBeGreaterThanOrEqual(total.held);
  }, 90_000);
});
