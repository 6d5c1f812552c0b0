import { canonicalJson } from '../integrity/canonical-json';
import type { HistoryCheck, VerifiedEvent } from '../integrity/verify';
import type { JsonValue } from '../ports/event-store';
import { SCHEDULER_CHECKPOINTED, schedulerDecider, schedulerStateData, type SchedulerState, type SchedulerStateData } from '../scheduler';
import { SCHEDULER_STREAM_PREFIX } from '../streams';
import { schedulerEventCodec } from './aggregates';

/**
 * The audit's check of scheduler checkpoints: each `SchedulerCheckpointed` must record the state the
 * scheduler's events before it fold to. A restart without the views starts a scheduler from its latest
 * checkpoint instead of folding its stream (StreamAggregate.loadFromCheckpoint), so a checkpoint that
 * says otherwise than its history would make the engine act on a state the history does not hold.
 *
 * Each scheduler stream is folded as it goes by, with the scheduler's own `evolve`, checkpoints left
 * out of the fold. A stream the check cannot follow (a revision out of turn, an event that is not a
 * scheduler's: the chain's check and the recovery report those) is not judged any further.
 */

type Followed = { readonly state: SchedulerState; readonly revision: bigint };

/** How much of a value a finding quotes. */
const QUOTED_CHARACTERS = 160;

const quoted = (value: unknown): string => {
  const text = value === undefined ? 'nothing' : canonicalJson(value as JsonValue);
  return text.length <= QUOTED_CHARACTERS ? text : `${text.slice(0, QUOTED_CHARACTERS)}... (${text.length} characters)`;
};

/**
 * The state with its attempts in flight and unresolved actions sorted: a set's order is how it was
 * filled, which says nothing about the history, so two states that differ only in it are the same.
 */
const inOrder = (state: SchedulerStateData): SchedulerStateData => ({
  ...state,
  in_flight: [...state.in_flight].sort((a, b) => a[0] - b[0]),
  unresolved: [...state.unresolved].sort(),
});

const placeOf = (event: VerifiedEvent): string => `position ${event.position} (stream '${event.stream}', revision ${event.revision})`;

export class SchedulerCheckpointCheck implements HistoryCheck {
  /** Each scheduler stream's fold so far; null once the stream cannot be followed. */
  private readonly streams = new Map<string, Followed | null>();

  check(event: VerifiedEvent): { readonly code: 'checkpoint_mismatch'; readonly message: string } | undefined {
    const stream = event.stream;
    if (!stream.startsWith(SCHEDULER_STREAM_PREFIX)) return undefined;
    const followed = this.streams.get(stream);
    if (followed === null) return undefined;
    if (event.revision !== (followed === undefined ? 0n : followed.revision + 1n)) return this.leave(stream);
    const before = followed === undefined ? schedulerDecider.initialState() : followed.state;
    const decoded = schedulerEventCodec.fromRecorded(event);
    if (event.type !== SCHEDULER_CHECKPOINTED) {
      if (typeof decoded === 'string') return this.leave(stream);
      let after: SchedulerState;
      try {
        after = schedulerDecider.evolve(before, decoded);
      } catch {
        return this.leave(stream);
      }
      this.streams.set(stream, { state: after, revision: event.revision });
      return undefined;
    }
    this.streams.set(stream, { state: before, revision: event.revision });
    // The codec decodes a checkpoint's state: one it refuses holds none.
    if (typeof decoded === 'string' || decoded.type !== SCHEDULER_CHECKPOINTED) {
      return {
        code: 'checkpoint_mismatch',
        message: `the scheduler checkpoint at ${placeOf(event)} does not hold a scheduler's state (${quoted(event.data)}): it was changed after it was written`,
      };
    }
    const recorded = inOrder(decoded.state);
    const folded = inOrder(schedulerStateData(before));
    for (const member of Object.keys(folded) as (keyof typeof folded)[]) {
      const given = quoted(folded[member]);
      const held = quoted(recorded[member]);
      if (given === held) continue;
      return {
        code: 'checkpoint_mismatch',
        message:
          `the scheduler checkpoint at ${placeOf(event)} records ${member} ${held} where the scheduler's events before it give ${given}: ` +
          'a restart without the views would start the scheduler from a state its history does not hold; the checkpoint or the events before it were changed',
      };
    }
    return undefined;
  }

  private leave(stream: string): undefined {
    this.streams.set(stream, null);
    return undefined;
  }
}
