import { invocationAggregate } from '../../../domain/application';
import type { BehaviorHistoryEvent } from '../../../domain/invocation';
import type { AuditedInvocation, AuditReport } from '../../../adapters/cli/audit-report';
import { catchUpViews } from '../../../adapters/cli/audit-report';
import { auditIntegrity } from '../../../adapters/cli/audit-integrity';
import { formatAudit } from '../../../adapters/cli/commands/audit';
import { openWorkspace } from '../../../adapters/cli/workspace';
import { listOpenInvocations, listSchedulers, storedHistory, verifyHistory, type HistoryFilter } from '../../../projections';
import { INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, cli, scratchDir } from './support/cli';

/**
 * The streamed audit prints exactly what the audit printed when it held the whole history in memory:
 * the oracle below renders every closed invocation's history into one list, verifies it as a whole,
 * then loads each invocation's aggregate a second time for its dispatch times and resolutions.
 */

jest.setTimeout(180_000);

const dataDir = scratchDir('audit-streamed');
const store = ['--data-dir', dataDir];
const EPISODE = 'episode-streamed';

const wholeHistoryAudit = async (filter: HistoryFilter): Promise<AuditReport> => {
  const opened = await openWorkspace({ dataDir }, { durable: true, readOnly: true });
  if (!opened.ok) throw new Error(opened.message);
  const workspace = opened.workspace;
  try {
    const integrity = await auditIntegrity(workspace.store);
    if ('kind' in integrity) throw new Error(integrity.reason);
    const caught = await catchUpViews(workspace);
    if (!caught.ok) throw new Error(caught.message);
    const rendered = await storedHistory(workspace.views, workspace.store, filter);
    if (rendered.kind !== 'history') throw new Error(rendered.reason);
    const history = rendered.events;
    const byInvocation = new Map<string, BehaviorHistoryEvent[]>();
    for (const event of history) {
      const id = event.invocation_tool_context?.invocation_action_instance_id ?? event.action_instance_id;
      byInvocation.set(id, [...(byInvocation.get(id) ?? []), event]);
    }
    const invocations: AuditedInvocation[] = [];
    for (const [id, events] of byInvocation) {
      const aggregate = invocationAggregate(workspace.store, filter.episode ?? EPISODE, id);
      expect((await aggregate.load()).kind).toBe('loaded');
      const state = aggregate.state;
      if (state.status !== 'opened') throw new Error(`${id} is not opened`);
      const outer = events.find((event) => event.invocation_tool_context === undefined && event.event_type === 'observation_emitted');
      const toolIds = [...new Set(events.filter((event) => event.invocation_tool_context !== undefined).map((event) => event.action_instance_id))];
      invocations.push({
        invocation_action_instance_id: id,
        participant_address: events[0]!.participant_address,
        episode_id: events[0]!.episode_id,
        action_contract_address: events[0]!.invocation_tool_context?.invocation_action_contract_address ?? events[0]!.action_contract_address,
        outer_status: outer?.action_result?.status ?? null,
        closed_at: outer?.timestamp ?? (state.lifecycle.status === 'closed' ? state.lifecycle.closedAt : null),
        tool_actions: toolIds.map((actionId) => {
          const own = events.filter((event) => event.action_instance_id === actionId);
          const first = own[0]!;
          const settled = own.find((event) => event.event_type === 'observation_emitted');
          const record = state.toolActions[state.positionByActionId.get(actionId)!]!;
          const resolution = record.phase === 'settled' ? record.resolution : null;
          return {
            action_instance_id: actionId,
            admission_ordinal: first.invocation_tool_context!.admission_ordinal,
            tool_call_id: first.invocation_tool_context!.tool_call_id,
            tool_affordance_address: first.invocation_tool_context!.tool_affordance_address,
            action_contract_address: first.action_contract_address,
            admitted_at: first.timestamp,
            dispatched_at: record.phase === 'admitted' ? null : record.dispatchedAt,
            settled_at: settled?.timestamp ?? null,
            settlement: first.invocation_tool_context!.settlement,
            status: settled?.action_result?.status ?? null,
            resolution: resolution === null ? null : { effect: resolution.effect, evidence_ref: resolution.evidenceRef, resolved_at: resolution.resolvedAt },
          };
        }),
      });
    }
    const findings = verifyHistory(history);
    return {
      filter,
      integrity,
      history_events: history.length,
      invocations,
      open_invocations: listOpenInvocations(workspace.views).map((row) => row.invocation_action_instance_id),
      schedulers: listSchedulers(workspace.views, {
        ...(filter.episode === undefined ? {} : { episode: filter.episode }),
        ...(filter.participant === undefined ? {} : { participant: filter.participant }),
      }),
      findings,
      sound: findings.length === 0 && integrity.findings.length === 0,
    };
  } finally {
    await workspace.close();
  }
};

describe('raes-tools audit streams the history one invocation at a time', () => {
  beforeAll(() => {
    // Two invocations: the first stops its scheduler at a timed-out call, resolved by an operator before the second.
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', EPISODE, ...store).status).toBe(0);
    expect(cli('resolve', `${INVOCATION(1)}:tool=2`, '--effect', 'absent', '--evidence', 'portal-access-log#7', ...store).status).toBe(0);
    expect(cli('scheduler', 'restart', PARTICIPANT, ...store).status).toBe(0);
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, ...store).status).toBe(0);
  });

  it('prints the same table text as the whole-history audit', async () => {
    const streamed = cli('audit', ...store);
    expect(streamed.stderr).toBe('');
    expect(streamed.status).toBe(0);
    // The store holds one episode: audit takes it, and its filter says so.
    const expected = await wholeHistoryAudit({ episode: EPISODE });
    expect(expected.invocations.map((invocation) => invocation.invocation_action_instance_id)).toEqual([INVOCATION(1), INVOCATION(2)]);
    expect(expected.invocations[0]!.tool_actions[1]!.resolution).toEqual(expect.objectContaining({ effect: 'absent' }));
    expect(streamed.stdout).toBe(formatAudit(expected));
  });

  it('prints the same JSON, byte for byte, narrowed or not', async () => {
    expect(cli('audit', ...store, '--json').stdout).toBe(`${JSON.stringify(await wholeHistoryAudit({ episode: EPISODE }), null, 2)}\n`);
    const narrowed = { episode: EPISODE, invocation: INVOCATION(2) };
    const expected = await wholeHistoryAudit(narrowed);
    expect(cli('audit', ...store, '--json', '--invocation', INVOCATION(2)).stdout).toBe(
      `${JSON.stringify({ ...expected, invocations: expected.invocations.filter((i) => i.invocation_action_instance_id === INVOCATION(2)) }, null, 2)}\n`,
    );
  });

  it('prints an empty invocation list as the whole-history audit does', async () => {
    const nobody = 'participant.behavior.nobody';
    const none = { participant: nobody, episode: EPISODE };
    expect(cli('audit', ...store, '--json', '--participant', nobody).stdout).toBe(`${JSON.stringify(await wholeHistoryAudit(none), null, 2)}\n`);
    expect(cli('audit', ...store, '--participant', nobody).stdout).toBe(formatAudit(await wholeHistoryAudit(none)));
  });

  it('refuses an episode the store does not hold, naming the one it holds', () => {
    const unknown = cli('audit', ...store, '--episode', 'no-such-episode');
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain(`no episode no-such-episode in the store of ${dataDir}; the episodes it holds: ${EPISODE}`);
  });
});
