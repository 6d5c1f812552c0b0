/**
 * How an export frames its documents (docs/decisions.md, export envelope). `json`: one object with a
 * list per kind. `jsonl`: one document per line, each in an envelope `{"kind": ..., "document": ...}`.
 * Every piece is text written as soon as it is known, so no export is ever held whole in memory.
 */

export type ExportFormat = 'json' | 'jsonl';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'jsonl'];

export type ExportKind = 'behavior_history_event' | 'participant_history_view' | 'operation_status';

/** The key of each kind's list in the `json` object. */
export const JSON_SECTIONS: { readonly [K in ExportKind]: string } = {
  behavior_history_event: 'behavior_history_event_stream',
  participant_history_view: 'participant_history_views',
  operation_status: 'operation_statuses',
};

export interface ExportLayout {
  readonly begin: string;
  readonly end: string;
  sectionStart(kind: ExportKind, first: boolean): string;
  readonly sectionEnd: string;
  documentStart(kind: ExportKind, first: boolean): string;
  readonly documentEnd: string;
}

const jsonLayout: ExportLayout = {
  begin: '{',
  end: '}\n',
  sectionStart: (kind, first) => `${first ? '' : ','}\n${JSON.stringify(JSON_SECTIONS[kind])}:[`,
  sectionEnd: '\n]',
  documentStart: (_kind, first) => (first ? '\n' : ',\n'),
  documentEnd: '',
};

const jsonlLayout: ExportLayout = {
  begin: '',
  end: '',
  sectionStart: () => '',
  sectionEnd: '',
  documentStart: (kind) => `{"kind":${JSON.stringify(kind)},"document":`,
  documentEnd: '}\n',
};

export const layoutOf = (format: ExportFormat): ExportLayout => (format === 'json' ? jsonLayout : jsonlLayout);

/** An object's JSON with its closing brace left open, so that a list can be written after it. */
export const openObject = (value: object): string => {
  const text = JSON.stringify(value);
  return text === '{}' ? '{' : `${text.slice(0, -1)},`;
};
