import { holdsLease, LEASE_EVENT_TYPES, leaseDecider, type LeaseCommand, type LeaseEvent, type LeaseRefusal, type LeaseState } from '../lease';
import { leaseStream } from '../streams';
import type { EventStore } from '../ports/event-store';
import { trustedCodec } from './aggregates';
import { StreamAggregate, type AggregateKind } from './stream-aggregate';

/**
 * Scheduler ownership when several engines share one server store: each participant's scheduler in an
 * episode is run by the engine holding its lease in that episode, a stream in the store itself appended with the expected
 * revision (so of two engines deciding at once, one wins), renewed before it expires. An engine takes
 * the participants it claims when free, and any participant whose lease expired (its engine died);
 * it stops starting attempts of a participant `marginMs` before its lease would expire unrenewed.
 */

export type LeaseAnswer = { readonly kind: 'accepted' } | { readonly kind: 'refused'; readonly refusal: LeaseRefusal };

type LeaseAggregate = StreamAggregate<LeaseState, LeaseCommand, LeaseEvent, LeaseAnswer>;

const ACCEPTED: LeaseAnswer = Object.freeze({ kind: 'accepted' });
const NO_EVENTS: readonly LeaseEvent[] = Object.freeze([]);

/** A lease's key is its stream name (the episode and the participant, see domain/streams.ts). */
const leaseKind: AggregateKind<LeaseState, LeaseCommand, LeaseEvent, LeaseAnswer> = {
  streamOf: (stream) => stream,
  decider: {
    initialState: leaseDecider.initialState,
    evolve: leaseDecider.evolve,
    decide: (command, state) => {
      const decision = leaseDecider.decide(command, state);
      return decision.kind === 'decided' ? { events: decision.events, answer: ACCEPTED } : { events: NO_EVENTS, answer: { kind: 'refused', refusal: decision.refusal } };
    },
  },
  codec: trustedCodec('a lease', new Set(Object.keys(LEASE_EVENT_TYPES))),
};

export interface LeaseSettings {
  /** This engine's id, unique among the engines sharing the store. */
  readonly owner: string;
  readonly durationMs: number;
  /** Attempts stop starting this long before an unrenewed lease expires (more than the clock skew between hosts). */
  readonly marginMs: number;
  /** The participants this engine takes when their lease is free; others only once their lease expired. */
  readonly claims: ReadonlySet<string> | 'all';
}

/** What one round changed: the participants newly taken (to recover and run) and those lost to another engine. */
export interface LeaseRound {
  readonly taken: readonly string[];
  readonly lost: readonly string[];
  readonly failures: readonly string[];
}

export interface LeaseHeldElsewhere {
  readonly participant_address: string;
  readonly owner: string;
  readonly expires_at: string;
}

export class ParticipantLeases {
  private readonly leases = new Map<string, LeaseAggregate>();
  /** The participants this engine took and has not lost or released. */
  private readonly mine = new Set<string>();
  /** When the last round decided (heldElsewhere answers as of it, not of a later clock reading). */
  private lastRoundAtMs: number | undefined;

  constructor(
    store: EventStore,
    episodeId: string,
    participants: readonly string[],
    private readonly settings: LeaseSettings,
    private readonly clock: () => Date,
  ) {
    for (const participant of participants) this.leases.set(participant, new StreamAggregate(leaseStream(episodeId, participant), store, leaseKind));
  }

  get owner(): string {
    return this.settings.owner;
  }

  /** True while this engine holds the participant's lease with more than the margin left. */
  holds(participant: string): boolean {
    const lease = this.leases.get(participant);
    return lease !== undefined && this.mine.has(participant) && holdsLease(lease.state, this.settings.owner, this.clock().getTime(), this.settings.marginMs);
  }

  /** Renews the leases held, then tries to take the others (reading each lease stream from where it stopped). */
  async round(): Promise<LeaseRound> {
    const taken: string[] = [];
    const lost: string[] = [];
    const failures: string[] = [];
    const { owner, durationMs, claims } = this.settings;
    const roundAt = this.clock();
    const now = roundAt.toISOString();
    this.lastRoundAtMs = roundAt.getTime();
    await Promise.all(
      [...this.leases].map(async ([participant, lease]) => {
        if (this.mine.has(participant)) {
          const renewed = await lease.handle({ type: 'RenewLease', owner, now, duration_ms: durationMs });
          if (renewed.kind === 'unavailable') return void failures.push(`renewing the lease of ${participant}: ${renewed.reason}`);
          if (renewed.answer.kind === 'refused') {
            this.mine.delete(participant);
            lost.push(participant);
          }
          return;
        }
        const loaded = await lease.load();
        if (loaded.kind === 'unavailable') return void failures.push(`reading the lease of ${participant}: ${loaded.reason}`);
        const onlyExpired = claims !== 'all' && !claims.has(participant);
        const acquired = await lease.handle({ type: 'AcquireLease', participant_address: participant, owner, onlyExpired, now, duration_ms: durationMs });
        if (acquired.kind === 'unavailable') return void failures.push(`taking the lease of ${participant}: ${acquired.reason}`);
        if (acquired.answer.kind === 'accepted') {
          this.mine.add(participant);
          taken.push(participant);
        }
      }),
    );
    return { taken, lost, failures };
  }

  /**
   * The participants another engine held at the last round (so this engine neither took nor recovered
   * them): its id and the lease's expiry. Judged at the round's time, not now: a lease that expired
   * since the round was still refused in it, and its participant is still left to a later round.
   */
  heldElsewhere(): LeaseHeldElsewhere[] {
    const nowMs = this.lastRoundAtMs ?? this.clock().getTime();
    const held: LeaseHeldElsewhere[] = [];
    for (const [participant, lease] of this.leases) {
      const state = lease.state;
      if (state.status === 'held' && state.owner !== this.settings.owner && state.expiresAtMs > nowMs) {
        held.push({ participant_address: participant, owner: state.owner, expires_at: new Date(state.expiresAtMs).toISOString() });
      }
    }
    return held;
  }

  /** Releases every lease held (a clean stop): another engine may take them at once. */
  async releaseAll(): Promise<void> {
    const now = this.clock().toISOString();
    await Promise.all(
      [...this.mine].map(async (participant) => {
        this.mine.delete(participant);
        await this.leases.get(participant)?.handle({ type: 'ReleaseLease', owner: this.settings.owner, now });
      }),
    );
  }
}
