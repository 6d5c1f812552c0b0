import type { SubscriptionBatch } from '../../domain/ports/event-store';
import { describeError } from '../../domain/ports/storage-failure';
import { parseInvocationStream, type InvocationStreamName } from '../../domain/streams';
import { ALL_PROJECTIONS, ProjectionRunner, listOpenInvocations, listSchedulers, type AuditFinding } from '../../projections';
import type { AuditPageFeed, PageMessage } from '../http/audit-page/server';
import { auditClosedInvocations, auditOpenInvocation, buildAuditReport, type AuditedInvocation } from './audit-report';
import type { Workspace } from './workspace';

/**
 * What `serve` shows, kept current by the projections following the log (ProjectionRunner.startLive
 * over the read-only command's temporary copy of the views). After each batch the views hold, the invocations the
 * batch touched are audited again, each alone (a closed one rendered and verified from its history as
 * `audit` does, an open one from its stream), and sent with the schedulers as one patch. Snapshots and
 * patches are built one at a time, in order, so a client never gets a patch older than its snapshot.
 */

/** An invocation as the page shows it; `open` ones have no history yet, only their stream. */
export type PageInvocation = AuditedInvocation & { readonly open: boolean };

export interface LiveAuditPageFeed extends AuditPageFeed {
  /** Stops following the log, after the batch in hand. */
  close(): Promise<void>;
}

const failure = (message: string): PageMessage => ({ kind: 'failure', message });

export const startAuditPageFeed = (workspace: Workspace, filter: { readonly episode?: string }): LiveAuditPageFeed => {
  const store = workspace.store;
  const listeners = new Set<(message: PageMessage) => void>();
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const broadcast = (message: PageMessage): void => {
    for (const listener of listeners) listener(message);
  };

  const snapshot = async (): Promise<PageMessage> => {
    const built = await buildAuditReport(workspace, filter);
    if (!built.ok) return failure(built.message);
    const report = built.value;
    const invocations: PageInvocation[] = report.invocations.map((invocation) => ({ ...invocation, open: false }));
    const openStreams = listOpenInvocations(workspace.views)
      .filter((row) => filter.episode === undefined || row.episode_id === filter.episode)
      .map((row) => row.stream);
    for (const stream of openStreams) {
      const open = await auditOpenInvocation(store, stream);
      if (open === undefined) continue;
      if ('message' in open) return failure(open.message);
      invocations.push({ ...open, open: true });
    }
    return {
      kind: 'snapshot',
      sound: report.sound,
      integrity_findings: report.integrity.findings,
      findings: report.findings,
      schedulers: report.schedulers,
      invocations,
    };
  };

  const snapshotOrFailure = (): Promise<PageMessage> =>
    snapshot().catch((error: unknown) => failure(`the audit failed: ${describeError(error)}`));

  const patchOf = async (batch: SubscriptionBatch): Promise<PageMessage> => {
    // The invocations of the page's episode the batch touched, by stream (ids repeat across episodes).
    const touched = new Map<string, InvocationStreamName>();
    for (const event of batch.events) {
      const name = parseInvocationStream(event.stream);
      if (name !== undefined && (filter.episode === undefined || name.episodeId === filter.episode)) touched.set(event.stream, name);
    }
    const invocations: PageInvocation[] = [];
    const findings: Record<string, readonly AuditFinding[]> = {};
    for (const [stream, { episodeId, invocationActionInstanceId: id }] of touched) {
      const rows = workspace.views.participantHistory.closedInvocations({ invocation: id, episode: episodeId });
      if (rows.length > 0) {
        const audited = await auditClosedInvocations(store, rows);
        if (!audited.ok) return failure(audited.message);
        for (const invocation of audited.invocations) invocations.push({ ...invocation, open: false });
        findings[id] = audited.findings.filter((finding) => finding.invocation_action_instance_id === id);
        continue;
      }
      const open = await auditOpenInvocation(store, stream);
      if (open === undefined) continue;
      if ('message' in open) return failure(open.message);
      invocations.push({ ...open, open: true });
    }
    return { kind: 'patch', position: batch.position.toString(), invocations, findings, schedulers: listSchedulers(workspace.views, filter) };
  };

  const runner = new ProjectionRunner({ store, views: workspace.views, projections: ALL_PROJECTIONS });
  runner.startLive({
    onEnded: (ended) => {
      const reason = ended.kind === 'storage_failure' ? ended.reason : ended.kind === 'handler_failed' ? describeError(ended.error) : 'stopped';
      broadcast(failure(`following the log stopped (${reason}); trying again`));
    },
    afterBatch: (batch) =>
      serialized(async () => {
        if (listeners.size === 0 || batch.events.length === 0) return;
        try {
          broadcast(await patchOf(batch));
        } catch (error) {
          broadcast(failure(`auditing what changed failed: ${describeError(error)}`));
        }
      }),
  });

  return {
    connect: (send) => {
      let connected = true;
      void serialized(async () => {
        const message = await snapshotOrFailure();
        if (!connected) return;
        send(message);
        listeners.add(send);
      });
      return () => {
        connected = false;
        listeners.delete(send);
      };
    },
    snapshot: () => serialized(snapshotOrFailure),
    close: () => runner.stop(),
  };
};
