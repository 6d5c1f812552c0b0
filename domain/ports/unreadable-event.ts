/**
 * Thrown when a stored event's data or metadata is not the JSON it was written as: the store was
 * changed outside the engine (or damaged), and nothing the engine writes reads back so. It names the
 * event, so that whoever reads the history (the audit, an export) can say where.
 */
export class UnreadableEvent extends Error {
  constructor(
    readonly position: bigint,
    readonly stream: string,
    readonly revision: bigint,
    readonly part: 'data' | 'metadata',
    reason: string,
  ) {
    super(`the event at position ${position} (stream '${stream}', revision ${revision}) cannot be read: its ${part} is not JSON (${reason}), so it was changed after it was written`);
    this.name = 'UnreadableEvent';
  }
}

/** `JSON.parse(text)`, or UnreadableEvent naming the event when the text is not JSON. */
export const parseStored = <T>(text: string, part: 'data' | 'metadata', event: { readonly position: bigint; readonly stream: string; readonly revision: bigint }): T => {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new UnreadableEvent(event.position, event.stream, event.revision, part, error instanceof Error ? error.message : String(error));
  }
};
