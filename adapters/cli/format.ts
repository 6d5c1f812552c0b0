import { MAX_TOOL_CALL_ID_LENGTH } from '../../domain/invocation/tool-action-request';
import { endOfWholeCharacters, escapeUnshowable } from '../../domain/unicode-text';

/** Plain-text tables and labels for people; machines get --json. */

/** The longest value shown whole: an admitted tool call id is shown whole. */
export const MAX_SHOWN_LENGTH = MAX_TOOL_CALL_ID_LENGTH;

/**
 * A value from outside the engine (an agent's tool call id or tool name, a harness's reason) as a
 * line of text shows it: every character a terminal would act on escaped as JSON escapes it (`\n`,
 * `\u001b`), and a value longer than MAX_SHOWN_LENGTH cut there and marked with its length (`--json`
 * prints it whole). A value cannot break a line, forge a line of the report or recolour the terminal.
 */
export const shown = (value: string): string => {
  let text = value;
  if (text.length > MAX_SHOWN_LENGTH) text = `${text.slice(0, endOfWholeCharacters(text, MAX_SHOWN_LENGTH))}…(${value.length} characters)`;
  return escapeUnshowable(text);
};

/**
 * A table whose every cell is shown (see `shown`), its columns padded to their widest cell. Plain
 * loops, no closure made per call: the audit draws one table per invocation.
 */
export const table = (headerRow: readonly string[], rowsGiven: readonly (readonly string[])[]): string => {
  const lines: string[][] = [headerRow.map(shown)];
  for (const row of rowsGiven) lines.push(row.map(shown));
  const widths = lines[0]!.map((header) => header.length);
  for (let r = 1; r < lines.length; r++) {
    const cells = lines[r]!;
    for (let column = 0; column < widths.length; column++) widths[column] = Math.max(widths[column]!, (cells[column] ?? '').length);
  }
  let text = '';
  for (const cells of lines) text += `${tableLine(cells, widths)}\n`;
  return text;
};

/** A row of a table: every cell but the last padded to its column's width, two spaces apart. */
const tableLine = (cells: readonly string[], widths: readonly number[]): string => {
  const last = cells.length - 1;
  let line = '';
  for (let column = 0; column < last; column++) line += `${cells[column]!.padEnd(widths[column] ?? 0)}  `;
  if (last >= 0) line += cells[last]!;
  return line.trimEnd();
};

/** 2026-12-02T15:47:01.123Z -> 15:47:01.123 (UTC); '-' when absent. */
export const timeOfDay = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return '-';
  const match = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(iso);
  return match?.[1] ?? iso;
};

const TOOL_MARK = ':tool=';

/** The `tool=<n>` tail of a tool action id, for tables under their invocation's heading. */
export const toolTail = (actionInstanceId: string): string => {
  const at = actionInstanceId.lastIndexOf(TOOL_MARK);
  return at < 0 ? actionInstanceId : actionInstanceId.slice(at + 1);
};

/** The last segment of a dotted address: participant.behavior.participant-agent -> participant-agent. */
export const lastSegment = (address: string): string => address.slice(address.lastIndexOf('.') + 1);

/** `<policy>:<participant>:<attempt>` -> "participant-agent attempt 3". */
export const invocationLabel = (invocationId: string): string => {
  const parts = invocationId.split(':');
  const attempt = parts[parts.length - 1];
  const participant = parts[parts.length - 2];
  return participant === undefined || attempt === undefined ? invocationId : `${lastSegment(participant)} attempt ${attempt}`;
};

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** A tool call id that starts with its invocation id is shown by its tail (`#call-2`). */
export const shortToolCall = (toolCallId: string, invocationId: string): string =>
  toolCallId.startsWith(invocationId) && toolCallId.length > invocationId.length ? toolCallId.slice(invocationId.length) : toolCallId;

export const invocationOfAction = (actionInstanceId: string): string => {
  const at = actionInstanceId.lastIndexOf(TOOL_MARK);
  return at < 0 ? actionInstanceId : actionInstanceId.slice(0, at);
};
