import { invocationEventCodec } from '../../domain/application';
import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { parseInvocationStream } from '../../domain/streams';
import type { HistoryFilter } from '../../projections';
import { timeOfDay } from './format';

/**
 * `audit --follow`: reads the log from its start through the store port's `readAll`, then keeps
 * polling after the last position read, and prints one line per tool action as it settles and per
 * invocation as it closes. It only reads; memory holds the invocations still open (for the filter).
 */

const PAGE = 500;
const POLL_MS = 200;

type Owner = { readonly participant: string; readonly episode: string };

export interface Follower {
  /** Settles once stopped (after the page in hand) or when the store fails. */
  readonly ended: Promise<StorageFailure | { readonly kind: 'stopped' }>;
  stop(): void;
}

const matches = (filter: HistoryFilter, owner: Owner | undefined, invocation: string): boolean =>
  (filter.invocation === undefined || filter.invocation === invocation) &&
  (filter.participant === undefined || owner?.participant === filter.participant) &&
  (filter.episode === undefined || owner?.episode === filter.episode);

export const followAudit = (store: EventStore, filter: HistoryFilter, print: (line: string) => void): Follower => {
  let stopped = false;
  let wake: (() => void) | undefined;
  const owners = new Map<string, Owner>();
  const loop = async (): Promise<StorageFailure | { readonly kind: 'stopped' }> => {
    let after: bigint | undefined;
    while (!stopped) {
      const read = await store.readAll({ ...(after === undefined ? {} : { after }), maxCount: PAGE });
      if (read.kind === 'storage_failure') return read;
      for (const recorded of read.events) {
        after = recorded.position;
        const name = parseInvocationStream(recorded.stream);
        if (name === undefined) continue;
        if (recorded.type !== 'InvocationOpened' && recorded.type !== 'ToolActionSettled' && recorded.type !== 'InvocationClosed') continue;
        const event = invocationEventCodec.fromRecorded(recorded);
        if (typeof event === 'string') continue;
        const invocation = name.invocationActionInstanceId;
        // Invocation ids repeat across episodes: what is open is kept by stream.
        const stream = recorded.stream;
        if (event.type === 'InvocationOpened') {
          owners.set(stream, { participant: event.port_values.participant_address, episode: name.episodeId });
        } else if (event.type === 'ToolActionSettled') {
          if (!matches(filter, owners.get(stream), invocation)) continue;
          const status = event.settlement === 'completed' ? ` (${event.action_result.status})` : ` (${event.reason})`;
          print(`${timeOfDay(event.at)} tool action ${event.action_instance_id} settled ${event.settlement}${status}\n`);
        } else if (event.type === 'InvocationClosed') {
          const owner = owners.get(stream);
          owners.delete(stream);
          if (!matches(filter, owner, invocation)) continue;
          const how = event.outcome === 'returned' ? `returned ${event.action_result.status}` : event.outcome;
          print(`${timeOfDay(event.at)} invocation ${invocation} closed: ${how}${event.recovered ? ' (by recovery)' : ''}\n`);
        }
      }
      if (read.events.length < PAGE && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
    return { kind: 'stopped' };
  };
  const ended = loop();
  return {
    ended,
    stop: () => {
      stopped = true;
      wake?.();
    },
  };
};
