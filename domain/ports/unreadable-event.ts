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

/**
 * An event that reads as JSON but is not one the engine writes where it stands: its type tag is not
 * its recorded type, or its members are not the ones the engine's events hold, so folding it fails. The
 * store was changed outside the engine (or damaged). Replay trusts the engine's own events (it checks
 * type tags, not every member), so this names what a fold ran into rather than proving every event right;
 * `raes-tools audit` checks the whole history.
 */
export class ForeignEvent extends Error {
  constructor(
    readonly position: bigint,
    readonly stream: string,
    readonly revision: bigint,
    reason: string,
  ) {
    super(`the event at position ${position} (stream '${stream}', revision ${revision}) is not an event the engine writes there (${reason}), so it was changed after it was written: run \`raes-tools audit\` to see where the history breaks, and restore the store from a backup taken before the change`);
    this.name = 'ForeignEvent';
  }
}
