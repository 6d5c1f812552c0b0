import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { passOverLog } from '../../../adapters/cli/audit-pass';
import { openWorkspace, type Workspace } from '../../../adapters/cli/workspace';
import { outerActionInstanceId, toolActionInstanceId } from '../../../domain/addresses';
import { listEpisodes, listOpenInvocations, listSchedulers, openInvocationsProjection, participantHistoryProjection, schedulersProjection } from '../../../projections';
import { InvocationDriver, participant, POLICY, SchedulerDriver, tick } from '../../projections/support/world';
import { scratchDir } from './support/cli';

/**
 * A cold audit folds the open invocations and schedulers into rows of its own instead of catching
 * their views up: what it lists from them is what the caught-up views file lists, in the same order.
 */

jest.setTimeout(60_000);

const dataDir = scratchDir('audit-pass-views');
const PROJECTIONS = [participantHistoryProjection, openInvocationsProjection, schedulersProjection];
const FIRST = 'episode-first';
const SECOND = 'episode-second';
const ZED = participant('zed');
const PROBER = participant('prober');
const SCOUT = participant('scout');

const writeHistory = async (): Promise<void> => {
  const opened = await openWorkspace({ dataDir }, { durable: true, writer: 'spec' });
  if (!opened.ok) throw new Error(opened.message);
  const store = opened.workspace.store;
  try {
    // Schedulers first seen out of their listing order, in two episodes; one stopped by an indeterminate action.
    const zed = new SchedulerDriver(store, ZED, FIRST);
    const prober = new SchedulerDriver(store, PROBER, FIRST);
    const scout = new SchedulerDriver(store, SCOUT, SECOND);
    const proberInSecond = new SchedulerDriver(store, PROBER, SECOND);
    await zed.run({ type: 'StartAttempt', policy: zed.policy, tick: 1, at: tick() });
    await scout.run({ type: 'StartAttempt', policy: scout.policy, tick: 1, at: tick() });
    await prober.run({ type: 'StartAttempt', policy: prober.policy, tick: 1, at: tick() });
    await proberInSecond.run({ type: 'StartAttempt', policy: proberInSecond.policy, tick: 1, at: tick() });
    const lost = toolActionInstanceId(outerActionInstanceId(POLICY, PROBER, 1), 2);
    await prober.run({ type: 'FinishAttempt', policy: prober.policy, attempt: 1, outcome: 'succeeded', indeterminate_action_ids: [lost], at: tick() });

    // Invocations: one closed, two open (the later opened first), one in the other episode.
    const closed = new InvocationDriver(store, ZED, 1, FIRST);
    await closed.open();
    await closed.activate();
    await closed.throwFromHarness();
    const later = new InvocationDriver(store, PROBER, 2, FIRST);
    const earlier = new InvocationDriver(store, PROBER, 1, FIRST);
    await later.open();
    await earlier.open();
    await later.activate();
    const action = await later.admit();
    await later.dispatch(action);
    const elsewhere = new InvocationDriver(store, SCOUT, 1, SECOND);
    await elsewhere.open();
  } finally {
    await opened.workspace.close();
  }
  // A cold start: the views file gone, as after losing it.
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `views.sqlite${suffix}`), { force: true });
};

/** What the audit lists from the views the pass hands back. */
const listed = async (workspace: Workspace, foldInMemory: boolean) => {
  const pass = await passOverLog(workspace, PROJECTIONS, {}, (invocation) => JSON.stringify(invocation), foldInMemory);
  pass.spool.dispose();
  expect(pass.caught.kind).toBe('caught_up');
  return {
    fromViewsFile: pass.views === workspace.views,
    open: listOpenInvocations(pass.views).map((row) => [row.invocation_action_instance_id, row.participant_address, row.episode_id, row.opened_at]),
    schedulers: listSchedulers(pass.views),
    first: listSchedulers(pass.views, { episode: FIRST }),
    prober: listSchedulers(pass.views, { participant: PROBER }),
    episodes: listEpisodes(pass.views),
  };
};

const readOnly = async (): Promise<Workspace> => {
  const opened = await openWorkspace({ dataDir }, { durable: true, readOnly: true });
  if (!opened.ok) throw new Error(opened.message);
  return opened.workspace;
};

describe("the audit pass's own open invocations and schedulers", () => {
  it('list what the caught-up views list, and are used only while the views file never held them', async () => {
    await writeHistory();

    const cold = await readOnly();
    let folded;
    try {
      folded = await listed(cold, true);
    } finally {
      await cold.close();
    }

    const viaFile = await readOnly();
    try {
      const caught = await listed(viaFile, false);
      expect(folded.fromViewsFile).toBe(false);
      expect(caught.fromViewsFile).toBe(true);
      expect({ ...folded, fromViewsFile: true }).toEqual(caught);
      expect(caught.open.map(([id]) => id)).toEqual([
        outerActionInstanceId(POLICY, PROBER, 2),
        outerActionInstanceId(POLICY, PROBER, 1),
        outerActionInstanceId(POLICY, SCOUT, 1),
      ]);
      expect(caught.episodes).toEqual([FIRST, SECOND]);
      expect(caught.schedulers.map((row) => [row.participant_address, row.status])).toEqual([
        [PROBER, 'stopped'],
        [PROBER, 'running'],
        [SCOUT, 'running'],
        [ZED, 'running'],
      ]);

      // The views file now holds both views: the pass reads them there even when it may fold in memory.
      expect((await listed(viaFile, true)).fromViewsFile).toBe(true);
    } finally {
      await viaFile.close();
    }
  });
});
