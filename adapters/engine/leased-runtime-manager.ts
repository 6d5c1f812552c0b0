import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ParticipantLeases, RuntimeManager, type LeaseHeldElsewhere, type RuntimeManagerOptions } from '../../domain/application';
import { LeaseKeeper } from './lease-keeper';

/** How long a lease lasts unrenewed, how often it is renewed, and how early its holder stops starting attempts. */
export interface LeaseTiming {
  readonly durationMs: number;
  readonly renewEveryMs: number;
  readonly marginMs: number;
}

/** docs/decisions.md, "Scheduler leases": 15 s, renewed every 5 s, attempts stop 5 s before an unrenewed expiry. */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { durationMs: 15_000, renewEveryMs: 5_000, marginMs: 5_000 };

/** An engine id unique among the engines sharing a store: host, process, and a random part. */
export const engineOwnerId = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export interface LeasedOptions {
  readonly owner: string;
  /** The participants this engine takes when free (others only once their lease expired); all when absent. */
  readonly claims?: ReadonlySet<string>;
  readonly timing?: LeaseTiming;
  /** Told which participants this engine took over (their recovery done). */
  readonly onTaken?: (participants: readonly string[]) => void;
}

/**
 * A runtime manager for a store several engines share (PostgreSQL, EventStoreDB): it runs only the
 * participants whose lease it holds. start() recovers nothing of other engines' participants, then
 * takes the leases it can (recovering exactly those); close() stops and releases them.
 */
export class LeasedRuntimeManager extends RuntimeManager {
  private readonly keeper: LeaseKeeper;

  constructor(options: Omit<RuntimeManagerOptions, 'ownership'>, leased: LeasedOptions) {
    const timing = leased.timing ?? DEFAULT_LEASE_TIMING;
    const participants = [...new Set(options.compiled.policies.flatMap((policy) => policy.participantAddresses))];
    const leases = new ParticipantLeases(
      options.store,
      options.episodeId,
      participants,
      { owner: leased.owner, durationMs: timing.durationMs, marginMs: timing.marginMs, claims: leased.claims ?? 'all' },
      options.clock,
    );
    const keeper = new LeaseKeeper(leases, timing.renewEveryMs, (progress) => options.onProgress?.(progress), leased.onTaken);
    super({ ...options, ownership: keeper });
    this.keeper = keeper;
  }

  override async start(): Promise<void> {
    await super.start();
    await this.keeper.start(this);
  }

  /** The participants another live engine runs (so this one neither runs nor recovers them). */
  heldElsewhere(): LeaseHeldElsewhere[] {
    return this.keeper.heldElsewhere();
  }

  override async close(): Promise<void> {
    await super.close();
    await this.keeper.stop();
  }
}
