import type { LeaseHeldElsewhere, ParticipantLeases, ParticipantOwnership, RuntimeManager, RuntimeProgress } from '../../domain/application';

/**
 * Drives an engine's participant leases (domain/application/participant-leases.ts) on a timer: every
 * `renewEveryMs` it renews the leases held and takes free or expired ones, and hands the participants
 * it took to the runtime manager, which recovers exactly their interrupted invocations before running
 * them. It is the manager's ownership: a participant runs here while its lease is held with the margin
 * left and its takeover (recovery) is done. stop() ends the timer and releases the leases (a clean
 * stop; after a SIGKILL they expire).
 */
export class LeaseKeeper implements ParticipantOwnership {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private current: Promise<void> = Promise.resolve();
  private manager: RuntimeManager | undefined;
  /** Participants taken whose recovery is done. */
  private readonly recovered = new Set<string>();
  /** Participants taken whose recovery has not succeeded yet (retried each round). */
  private readonly pending = new Set<string>();

  constructor(
    private readonly leases: ParticipantLeases,
    private readonly renewEveryMs: number,
    private readonly onProgress: (progress: RuntimeProgress) => void = () => undefined,
    private readonly onTaken: (participants: readonly string[]) => void = () => undefined,
  ) {}

  holds(participantAddress: string): boolean {
    return this.recovered.has(participantAddress) && this.leases.holds(participantAddress);
  }

  heldElsewhere(): LeaseHeldElsewhere[] {
    return this.leases.heldElsewhere();
  }

  /** Runs a first round (taking what it can, after the manager started) and then keeps renewing. */
  async start(manager: RuntimeManager): Promise<void> {
    this.manager = manager;
    await this.runRound();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.current;
    this.recovered.clear();
    await this.leases.releaseAll();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runRound().finally(() => this.schedule());
    }, this.renewEveryMs);
  }

  private runRound(): Promise<void> {
    // A round never rejects: the timer keeps going, and a failure is reported as progress.
    this.current = this.round().catch((error: unknown) => this.report({ kind: 'storage_failure', reason: `the lease round failed: ${error instanceof Error ? error.message : String(error)}` }));
    return this.current;
  }

  private report(progress: RuntimeProgress): void {
    try {
      this.onProgress(progress);
    } catch {
      // A failing display never stops the engine.
    }
  }

  private async round(): Promise<void> {
    const round = await this.leases.round();
    for (const reason of round.failures) this.report({ kind: 'storage_failure', reason });
    for (const participant of round.lost) {
      this.recovered.delete(participant);
      this.pending.delete(participant);
      this.report({ kind: 'scheduler_stopped', participant_address: participant, reason: 'another engine holds its lease now' });
    }
    for (const participant of round.taken) this.pending.add(participant);
    const manager = this.manager;
    if (this.pending.size === 0 || manager === undefined || this.stopped) return;
    const taking = [...this.pending];
    try {
      await manager.takeOver(taking);
      for (const participant of taking) {
        this.pending.delete(participant);
        this.recovered.add(participant);
      }
      try {
        this.onTaken(taking);
      } catch {
        // Only a display.
      }
    } catch (error) {
      this.report({ kind: 'storage_failure', reason: `taking over ${taking.join(', ')} (retried at the next renewal): ${error instanceof Error ? error.message : String(error)}` });
    }
  }
}
