import type { JsonValue } from '../../domain/ports/event-store';
import { canonicalJson, jsonString } from '../../domain/integrity/canonical-json';

/**
 * How an export frames its documents (docs/decisions.md, export envelope). `json`: one object with a
 * list per kind. `jsonl`: one document per line, each in an envelope `{"kind": ..., "document": ...}`.
 * `canonical` (a signed bundle's history, never a user's format): the `json` object in canonical JSON,
 * its lists in the order of their names. Every piece is text written as soon as it is known, so no
 * export is ever held whole in memory.
 */

export type ExportFormat = 'json' | 'jsonl';

export type ExportEncoding = ExportFormat | 'canonical';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'jsonl'];

export type ExportKind = 'behavior_history_event' | 'participant_history_view' | 'operation_status';

/** The key of each kind's list in the `json` object. */
export const JSON_SECTIONS: { readonly [K in ExportKind]: string } = {
  behavior_history_event: 'behavior_history_event_stream',
  participant_history_view: 'participant_history_views',
  operation_status: 'operation_statuses',
};

export interface ExportLayout {
  /** The order the kinds' documents are written in. */
  readonly kinds: readonly ExportKind[];
  /** A document's text. */
  document(value: object): string;
  /**
   * A participant history view's text up to its behavior history's first event, and from its last:
   * the view is written around its events, never held whole.
   */
  viewFrame(header: object): { readonly open: string; readonly close: string };
  readonly begin: string;
  readonly end: string;
  sectionStart(kind: ExportKind, first: boolean): string;
  readonly sectionEnd: string;
  documentStart(kind: ExportKind, first: boolean): string;
  readonly documentEnd: string;
}

const WRITTEN_ORDER: readonly ExportKind[] = ['behavior_history_event', 'participant_history_view', 'operation_status'];

const plainViewFrame = (header: object): { readonly open: string; readonly close: string } => ({ open: `${openObject(header)}"behavior_history":[`, close: ']}' });

const jsonLayout: ExportLayout = {
  kinds: WRITTEN_ORDER,
  document: (value) => JSON.stringify(value),
  viewFrame: plainViewFrame,
  begin: '{',
  end: '}\n',
  sectionStart: (kind, first) => `${first ? '' : ','}\n${JSON.stringify(JSON_SECTIONS[kind])}:[`,
  sectionEnd: '\n]',
  documentStart: (_kind, first) => (first ? '\n' : ',\n'),
  documentEnd: '',
};

const jsonlLayout: ExportLayout = {
  kinds: WRITTEN_ORDER,
  document: (value) => JSON.stringify(value),
  viewFrame: plainViewFrame,
  begin: '',
  end: '',
  sectionStart: () => '',
  sectionEnd: '',
  documentStart: (kind) => `{"kind":${JSON.stringify(kind)},"document":`,
  documentEnd: '}\n',
};

const HISTORY_MEMBER = 'behavior_history';

/** Canonical members of `header`, split around where `behavior_history` sorts among them. */
const canonicalViewFrame = (header: object): { readonly open: string; readonly close: string } => {
  const members = header as { readonly [name: string]: JsonValue | undefined };
  const names = Object.keys(members).filter((name) => members[name] !== undefined && name !== HISTORY_MEMBER).sort();
  const text = (name: string): string => `${jsonString(name)}:${canonicalJson(members[name]!)}`;
  const before = names.filter((name) => name < HISTORY_MEMBER).map(text);
  const after = names.filter((name) => name > HISTORY_MEMBER).map(text);
  return { open: `{${before.map((member) => `${member},`).join('')}${jsonString(HISTORY_MEMBER)}:[`, close: `]${after.map((member) => `,${member}`).join('')}}` };
};

const canonicalLayout: ExportLayout = {
  kinds: [...WRITTEN_ORDER].sort((a, b) => (JSON_SECTIONS[a] < JSON_SECTIONS[b] ? -1 : 1)),
  document: (value) => canonicalJson(value as JsonValue),
  viewFrame: canonicalViewFrame,
  begin: '{',
  end: '}',
  sectionStart: (kind, first) => `${first ? '' : ','}${jsonString(JSON_SECTIONS[kind])}:[`,
  sectionEnd: ']',
  documentStart: (_kind, first) => (first ? '' : ','),
  documentEnd: '',
};

export const layoutOf = (encoding: ExportEncoding): ExportLayout => (encoding === 'json' ? jsonLayout : encoding === 'jsonl' ? jsonlLayout : canonicalLayout);

/** An object's JSON with its closing brace left open, so that a list can be written after it. */
export const openObject = (value: object): string => {
  const text = JSON.stringify(value);
  return text === '{}' ? '{' : `${text.slice(0, -1)},`;
};
