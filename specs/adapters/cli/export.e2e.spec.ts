import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorsOf, validators } from '../../projections/support/schemas';
import { INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, cli, json, scratchDir, withoutStack } from './support/cli';

/**
 * `raes-tools export` after a run of the bundled example: every document it writes, in both formats,
 * validates against RAES's published schemas (base fields) and, whole, against the project's extensions.
 */

jest.setTimeout(120_000);

type Json = Record<string, unknown>;

interface JsonExport {
  behavior_history_event_stream: Json[];
  participant_history_views: Json[];
  operation_statuses: Json[];
}

const dataDir = scratchDir('export');
const store = ['--data-dir', dataDir];

const withoutToolContext = (event: Json): Json => {
  const copy: Json = { ...event };
  delete copy.invocation_tool_context;
  return copy;
};

/** The fields RAES's operation-status-v1 defines, read from the schema itself. */
const baseOperationFields = (status: Json): Json => {
  const properties = Object.keys((validators.raesOperationStatus.schema as { properties: Json }).properties);
  return Object.fromEntries(Object.entries(status).filter(([key]) => properties.includes(key)));
};

const expectValidEvent = (event: Json): void => {
  expect(errorsOf(validators.raesEventStream, [withoutToolContext(event)])).toEqual([]);
  expect(errorsOf(validators.eventStreamExtension, [event])).toEqual([]);
};

const expectValidView = (view: Json): void => {
  const events = view.behavior_history as Json[];
  expect(errorsOf(validators.raesHistoryView, { ...view, behavior_history: events.map(withoutToolContext) })).toEqual([]);
  expect(errorsOf(validators.historyViewExtension, view)).toEqual([]);
};

const expectValidOperation = (status: Json): void => {
  expect(errorsOf(validators.raesOperationStatus, baseOperationFields(status))).toEqual([]);
  expect(errorsOf(validators.operationStatusExtension(), status)).toEqual([]);
};

describe('raes-tools export of the bundled example', () => {
  let exported: JsonExport;
  let historyEvents: number;

  beforeAll(() => {
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-export', ...store);
    expect(run.status).toBe(0);
    historyEvents = json<{ history_events: number }>(cli('audit', ...store, '--json')).history_events;
    const out = join(dataDir, 'history.json');
    const result = cli('export', ...store, '--format', 'json', '--out', out);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    exported = JSON.parse(readFileSync(out, 'utf8')) as JsonExport;
  });

  it('writes as json one object whose every document validates against the RAES schemas and the extensions', () => {
    expect(historyEvents).toBeGreaterThan(0);
    expect(exported.behavior_history_event_stream).toHaveLength(historyEvents);
    for (const event of exported.behavior_history_event_stream) expectValidEvent(event);
    expect(exported.participant_history_views).toHaveLength(1);
    for (const view of exported.participant_history_views) expectValidView(view);
    expect(exported.operation_statuses.length).toBeGreaterThan(1);
    for (const status of exported.operation_statuses) expectValidOperation(status);
  });

  it('holds the run: the view is the stream without participant and episode, the operations are the invocation and its tool actions', () => {
    const [view] = exported.participant_history_views;
    expect(view).toMatchObject({ participant_address: PARTICIPANT, episode_id: 'episode-export', completeness: 'complete' });
    expect(view!.behavior_history).toEqual(
      exported.behavior_history_event_stream.map(({ participant_address: _p, episode_id: _e, ...body }) => body),
    );
    const [outer, ...tools] = exported.operation_statuses;
    expect(outer).toMatchObject({ operation_id: INVOCATION(1), operation_kind: 'outer_action' });
    expect(tools.map((tool) => [tool.parent_operation_id, tool.admission_ordinal])).toEqual(tools.map((_, i) => [INVOCATION(1), i + 1]));
    const settled = exported.behavior_history_event_stream.filter((event) => event.event_type === 'observation_emitted' && event.invocation_tool_context !== undefined);
    expect(tools.map((tool) => tool.settlement)).toEqual(settled.map((event) => (event.invocation_tool_context as Json).settlement));
  });

  it('writes as jsonl one enveloped document a line, the same documents as json, each valid', () => {
    const out = join(dataDir, 'history.jsonl');
    const result = cli('export', ...store, '--format', 'jsonl', '--out', out);
    expect(result.status).toBe(0);
    const lines = readFileSync(out, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const documents = lines.map((line) => JSON.parse(line) as { kind: string; document: Json });
    const ofKind = (kind: string): Json[] => documents.filter((line) => line.kind === kind).map((line) => line.document);
    expect(new Set(documents.map((line) => line.kind))).toEqual(new Set(['behavior_history_event', 'participant_history_view', 'operation_status']));
    for (const event of ofKind('behavior_history_event')) expectValidEvent(event);
    for (const view of ofKind('participant_history_view')) expectValidView(view);
    for (const status of ofKind('operation_status')) expectValidOperation(status);
    expect(ofKind('behavior_history_event')).toEqual(exported.behavior_history_event_stream);
    expect(ofKind('operation_status')).toEqual(exported.operation_statuses);
    expect(ofKind('participant_history_view').map(({ generated_at: _g, ...view }) => view)).toEqual(
      exported.participant_history_views.map(({ generated_at: _g, ...view }) => view),
    );
  });

  it('writes to stdout by default; --participant narrows to that participant; --progress reports on stderr', () => {
    const result = cli('export', ...store, '--participant', PARTICIPANT, '--progress');
    expect(result.status).toBe(0);
    const narrowed = JSON.parse(result.stdout) as JsonExport;
    expect(narrowed.behavior_history_event_stream).toEqual(exported.behavior_history_event_stream);
    expect(result.stderr).toMatch(/^export: event stream, invocation 1\/1$/m);
    expect(result.stderr).toMatch(new RegExp(`${historyEvents} behavior history events, 1 participant history views`));
  });

  it('refuses an unknown participant with exit 1, naming the participants present and writing no file', () => {
    const out = join(dataDir, 'nobody.json');
    const result = cli('export', ...store, '--participant', 'participant.behavior.nobody', '--out', out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no participant participant.behavior.nobody in ${dataDir}; the participants present: ${PARTICIPANT}`);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(withoutStack(result)).toBe(true);
  });

  it('answers usage errors with exit 2 and what to do', () => {
    const format = cli('export', ...store, '--format', 'xml');
    expect(format.status).toBe(2);
    expect(format.stderr).toContain('--format xml is not one of json, jsonl');
    const folder = cli('export', ...store, '--out', join(dataDir, 'missing', 'history.json'));
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain('does not exist');
    expect(withoutStack(format) && withoutStack(folder)).toBe(true);
  });

  it('has --help naming the shapes and both formats', () => {
    const help = cli('export', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('participant-behavior-history-event-stream-v1');
    expect(help.stdout).toContain('participant-history-view-v1');
    expect(help.stdout).toMatch(/jsonl\s+one document a line/);
  });
});
