import { behaviorEventBody } from '../../domain/invocation';
import {
  childOperations,
  getOperation,
  listOpenInvocations,
  listSchedulers,
  participantHistoryViewHeader,
  renderInvocationHistory,
  type HistoryIndexRow,
} from '../../projections';
import { catchUpViews } from './audit-report';
import { adviceGivenStore } from './changed-history';
import { fail, type Built } from './engine';
import { layoutOf, type ExportEncoding, type ExportKind } from './export-layout';
import type { ExportSink } from './export-sink';
import { EXIT_INVALID } from './io';
import type { Workspace } from './workspace';

/**
 * Writes the stored history in RAES's wire shapes: the behavior history event stream (with the
 * project's `invocation_tool_context` on tool-action events), one participant history view per
 * participant and episode, and the operation statuses (outer actions, then their tool actions). Each
 * invocation's history is rendered from its stream by the participant-history projection's renderer
 * and written before the next one is read.
 */

export interface ExportRequest {
  readonly participant?: string;
  readonly episode?: string;
  readonly format: ExportEncoding;
  /** The views' generated_at. */
  readonly generatedAt: string;
  readonly onProgress?: (line: string) => void;
}

export interface ExportCounts {
  readonly behavior_history_events: number;
  readonly participant_history_views: number;
  readonly operation_statuses: number;
}

/** Every participant the views know of: with a closed or an open invocation, or a scheduler. */
const participantsPresent = (workspace: Workspace): readonly string[] => {
  const present = new Set<string>();
  for (const row of workspace.views.participantHistory.closedInvocations({})) present.add(row.participant);
  for (const row of listOpenInvocations(workspace.views)) present.add(row.participant_address);
  for (const scheduler of listSchedulers(workspace.views)) present.add(scheduler.participant_address);
  return [...present].sort();
};

const unknownParticipant = (participant: string, present: readonly string[], dataDir: string): string =>
  present.length === 0
    ? `no participant ${participant}: ${dataDir} holds no participant yet (\`raes-tools run\` records some)`
    : `no participant ${participant} in ${dataDir}; the participants present: ${present.join(', ')}`;

/** Every episode with a closed or an open invocation. */
const episodesPresent = (workspace: Workspace): readonly string[] => {
  const present = new Set<string>();
  for (const row of workspace.views.participantHistory.closedInvocations({})) present.add(row.episode);
  for (const row of listOpenInvocations(workspace.views)) present.add(row.episode_id);
  return [...present].sort();
};

const unknownEpisode = (episode: string, present: readonly string[], dataDir: string): string =>
  present.length === 0
    ? `no episode ${episode}: ${dataDir} holds no invocation yet (\`raes-tools run\` records some)`
    : `no episode ${episode} in ${dataDir}; the episodes present: ${present.join(', ')}`;

/** Rows grouped by participant and episode, in the order each pair first closed an invocation. */
const byParticipantAndEpisode = (rows: readonly HistoryIndexRow[]): readonly (readonly HistoryIndexRow[])[] => {
  const groups = new Map<string, HistoryIndexRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.participant, row.episode]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  return [...groups.values()];
};

/** Reports every 100th step and the last, so a long export shows it moves without flooding the terminal. */
const stepReporter = (request: ExportRequest, what: string, total: number) => (done: number): void => {
  if (request.onProgress !== undefined && (done % 100 === 0 || done === total)) request.onProgress(`export: ${what} ${done}/${total}`);
};

export const writeExport = async (workspace: Workspace, request: ExportRequest, sink: ExportSink): Promise<Built<ExportCounts>> => {
  const caught = await catchUpViews(workspace);
  if (!caught.ok) return caught;
  if (request.participant !== undefined) {
    const present = participantsPresent(workspace);
    if (!present.includes(request.participant)) return fail(EXIT_INVALID, unknownParticipant(request.participant, present, workspace.dataDir));
  }
  const filter = {
    ...(request.participant === undefined ? {} : { participant: request.participant }),
    ...(request.episode === undefined ? {} : { episode: request.episode }),
  };
  if (request.episode !== undefined) {
    const present = episodesPresent(workspace);
    if (!present.includes(request.episode)) return fail(EXIT_INVALID, unknownEpisode(request.episode, present, workspace.dataDir));
  }
  const rows = workspace.views.participantHistory.closedInvocations(filter);
  const layout = layoutOf(request.format);
  let sections = 0;
  let documents = 0;
  const startSection = async (kind: ExportKind): Promise<void> => {
    await sink.write(layout.sectionStart(kind, sections === 0));
    sections += 1;
    documents = 0;
  };
  const startDocument = async (kind: ExportKind): Promise<void> => {
    await sink.write(layout.documentStart(kind, documents === 0));
    documents += 1;
  };
  /** One whole document of the section in hand. */
  const writeDocument = async (kind: ExportKind, value: object): Promise<void> => {
    await startDocument(kind);
    await sink.write(layout.document(value));
    await sink.write(layout.documentEnd);
  };
  const unavailable = async (reason: string, advice: string): Promise<Built<never>> =>
    fail(EXIT_INVALID, `the participant history cannot be rendered: ${reason}; ${await adviceGivenStore(advice, workspace.store)}`);

  const writeEventStream = async (): Promise<Built<number>> => {
    let events = 0;
    const eventStep = stepReporter(request, 'event stream, invocation', rows.length);
    for (let i = 0; i < rows.length; i++) {
      const rendered = await renderInvocationHistory(workspace.store, rows[i]!);
      if ('kind' in rendered) return unavailable(rendered.reason, rendered.advice);
      for (const event of rendered) {
        await writeDocument('behavior_history_event', event);
        events += 1;
      }
      eventStep(i + 1);
    }
    return { ok: true, value: events };
  };

  const groups = byParticipantAndEpisode(rows);
  const writeViews = async (): Promise<Built<number>> => {
    const viewStep = stepReporter(request, 'participant history view', groups.length);
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      const first = group[0]!;
      await startDocument('participant_history_view');
      const frame = layout.viewFrame(participantHistoryViewHeader(workspace.views, first.participant, first.episode, { generatedAt: request.generatedAt }));
      await sink.write(frame.open);
      let written = 0;
      for (const row of group) {
        const rendered = await renderInvocationHistory(workspace.store, row);
        if ('kind' in rendered) return unavailable(rendered.reason, rendered.advice);
        for (const event of rendered) {
          await sink.write(`${written === 0 ? '' : ','}${layout.document(behaviorEventBody(event))}`);
          written += 1;
        }
      }
      await sink.write(frame.close);
      await sink.write(layout.documentEnd);
      viewStep(g + 1);
    }
    return { ok: true, value: groups.length };
  };

  const writeStatuses = async (): Promise<Built<number>> => {
    const outerIds: (readonly [episode: string, invocation: string])[] = rows.map((row) => [row.episode, row.invocation] as const);
    for (const open of listOpenInvocations(workspace.views)) {
      if ((request.participant === undefined || open.participant_address === request.participant) && (request.episode === undefined || open.episode_id === request.episode)) {
        outerIds.push([open.episode_id, open.invocation_action_instance_id]);
      }
    }
    let operations = 0;
    const operationStep = stepReporter(request, 'operations of invocation', outerIds.length);
    for (let i = 0; i < outerIds.length; i++) {
      const [episode, invocation] = outerIds[i]!;
      const outer = getOperation(workspace.views, episode, invocation);
      if (outer !== undefined) {
        for (const status of [outer, ...childOperations(workspace.views, episode, outer.operation_id)]) {
          await writeDocument('operation_status', status);
          operations += 1;
        }
      }
      operationStep(i + 1);
    }
    return { ok: true, value: operations };
  };

  const writers: { readonly [K in ExportKind]: () => Promise<Built<number>> } = {
    behavior_history_event: writeEventStream,
    participant_history_view: writeViews,
    operation_status: writeStatuses,
  };
  const counts: { [K in ExportKind]: number } = { behavior_history_event: 0, participant_history_view: 0, operation_status: 0 };
  await sink.write(layout.begin);
  for (const kind of layout.kinds) {
    await startSection(kind);
    const written = await writers[kind]();
    if (!written.ok) return written;
    counts[kind] = written.value;
    await sink.write(layout.sectionEnd);
  }
  await sink.write(layout.end);
  return { ok: true, value: { behavior_history_events: counts.behavior_history_event, participant_history_views: counts.participant_history_view, operation_statuses: counts.operation_status } };
};
