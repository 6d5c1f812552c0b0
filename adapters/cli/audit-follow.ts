import { invocationEventCodec } from '../../domain/application';
import type { EventStore, RecordedEvent, SubscriptionEnded } from '../../domain/ports/event-store';
import { INVOCATION_STREAM_PREFIX, parseInvocationStream } from '../../domain/streams';
import { openingParticipant } from '../../domain/stored-events';
import type { HistoryFilter } from '../../projections';
import { shown, timeOfDay } from './format';

/**
 * `audit --follow`: follows the log from its start through the store's catch-up subscription (the one
 * the projections follow), and prints one line per tool action as it settles and per invocation as it
 * closes. It only reads, and keeps no checkpoint: each run shows the whole history, then what comes.
 * Memory holds the invocations still open (their owner, for the filter).
 */

type Owner = { readonly participant: string; readonly episode: string };

export interface Follower {
  /** Settles once stopped (after the batch in hand) or when the store fails. */
  readonly ended: Promise<SubscriptionEnded>;
  stop(): Promise<void>;
}

const FOLLOWED_TYPES = new Set(['InvocationOpened', 'ToolActionSettled', 'InvocationClosed']);

const matches = (filter: HistoryFilter, owner: Owner | undefined, invocation: string): boolean =>
  (filter.invocation === undefined || filter.invocation === invocation) &&
  (filter.participant === undefined || owner?.participant === filter.participant) &&
  (filter.episode === undefined || owner?.episode === filter.episode);

export const followAudit = (store: EventStore, filter: HistoryFilter, print: (line: string) => void): Follower => {
  const owners = new Map<string, Owner>();
  const printLineOf = (recorded: RecordedEvent): void => {
    if (!FOLLOWED_TYPES.has(recorded.type)) return;
    const name = parseInvocationStream(recorded.stream);
    if (name === undefined) return;
    const event = invocationEventCodec.fromRecorded(recorded);
    if (typeof event === 'string') return;
    const invocation = name.invocationActionInstanceId;
    // Invocation ids repeat across episodes: what is open is kept by stream.
    const stream = recorded.stream;
    if (event.type === 'InvocationOpened') {
      const participant = openingParticipant(event);
      if (participant !== undefined) owners.set(stream, { participant, episode: name.episodeId });
    } else if (event.type === 'ToolActionSettled') {
      if (!matches(filter, owners.get(stream), invocation)) return;
      const status = event.settlement === 'completed' ? ` (${event.action_result.status})` : ` (${shown(event.reason)})`;
      print(`${timeOfDay(event.at)} tool action ${event.action_instance_id} settled ${event.settlement}${status}\n`);
    } else if (event.type === 'InvocationClosed') {
      const owner = owners.get(stream);
      owners.delete(stream);
      if (!matches(filter, owner, invocation)) return;
      const how = event.outcome === 'returned' ? `returned ${event.action_result.status}` : event.outcome;
      print(`${timeOfDay(event.at)} invocation ${invocation} closed: ${how}${event.recovered ? ' (by recovery)' : ''}\n`);
    }
  };
  const subscription = store.subscribe({
    filter: { streamPrefixes: [INVOCATION_STREAM_PREFIX], eventTypePrefixes: [...FOLLOWED_TYPES] },
    handle: (batch) => {
      for (const recorded of batch.events) {
        try {
          printLineOf(recorded);
        } catch {
          // Members of other kinds than the engine writes: the store was changed; the line says so and the follow goes on.
          print(`event at position ${recorded.position} (stream ${shown(recorded.stream)}) is not one the engine writes: run \`raes-tools audit\` to see where the history was changed\n`);
        }
      }
    },
  });
  return { ended: subscription.ended, stop: () => subscription.stop() };
};
