import { isCadenceTick, nextCadenceTick, type SchedulerState } from '../scheduler';
import type { ResolvedEffect } from '../invocation';
import { registerRuntime, type Registration } from '../manifest';
import type { Diagnostic } from '../scenario';
import type { OpenInvocationsIndex } from '../ports/open-invocations';
import { AttemptLanes } from './attempt-lanes';
import { operationStatus } from './operation-lookup';
import type { OperationStatus } from './operations';
import { resetSharedClock, resolve, restartScheduler, type OperatorResult } from './operator-commands';
import { policyParticipantsOf, schedulerKey, type PolicyParticipant } from './policy-participants';
import { reportProgress, reportToolProgress, type RuntimeProgress } from './progress';
import { recoverInterrupted, recoverSchedulers, restoreSchedulers } from './recovery';
import { readRecoveryView } from './recovery-view';
import { must, type RuntimeContext } from './runtime-context';
import type { AttachedPort, RuntimeManagerOptions } from './runtime-options';
import { catchUpView } from './view-catch-up';

export type { AttachedPort, OpenInvocationsIndex, OperatorResult, RuntimeManagerOptions, RuntimeProgress };

/** What `advance` waits for: every attempt of the ticks to finish, or only to start. */
export type AdvanceUntil = 'finished' | 'started';

export class RegistrationRefused extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(`the participant runtime's claim is refused: ${diagnostics.map((d) => d.message).join(' ')}`);
    this.name = 'RegistrationRefused';
  }
}

/**
 * The live system (docs/rules.md, port; also history, recovery, durability): runs each v1 policy on a shared logical clock, opens an
 * invocation per due outer action, attaches and activates its port around `admitAction`, closes it,
 * counts the attempt, and recovers interrupted invocations on start. The work lives in attempts.ts and
 * invocations.ts (running), recovery.ts, operator-commands.ts and operation-lookup.ts; this class owns
 * the shared clock and the state they share.
 */
export class RuntimeManager {
  readonly registration: Registration;
  private readonly context: RuntimeContext;
  private currentTick = -1;
  private started = false;
  private advancing: Promise<void> = Promise.resolve();
  /** The views catching up over what recovery appended; close() waits for it. */
  private recoveryViews: Promise<unknown> = Promise.resolve();
  private driver: NodeJS.Timeout | undefined;
  private driverStopped = true;
  private readonly openInvocations: OpenInvocationsIndex | undefined;
  private readonly lanes: AttemptLanes;

  constructor(options: RuntimeManagerOptions) {
    const registration = registerRuntime(options.runtime, options.manifest, options.compiled);
    if (!registration.attachPort && registration.reason === 'claim-refused') {
      throw new RegistrationRefused(registration.diagnostics);
    }
    this.registration = registration;
    const onProgress = options.onProgress;
    this.openInvocations =
      options.openInvocations;
    this.context = {
      options,
      registration,
      schedulers: policyParticipantsOf(options.compiled, options.store, options.episodeId),
      held: new Set(),
      running: new Map(),
      crossingPolicy: { installed: options.crossingPolicyInstalled ?? false },
      portListener: onProgress === undefined ? undefined : (events) => reportToolProgress(events, onProgress),
      refusalListener: options.onRefusal,
      owns: options.ownership === undefined ? () => true : (participant) => options.ownership!.holds(participant),
      now: () => options.clock().toISOString(),
      progress: (progress) => reportProgress(progress, onProgress),
    };
    this.lanes = new AttemptLanes(this.context);
  }

  /** True when ports are attached: the manifest claims the composition and the runtime can take them. */
  get attachesPorts(): boolean {
    return this.registration.attachPort;
  }

  /** The last tick of the shared logical clock that ran (-1 before the first). */
  get tick(): number {
    return this.currentTick;
  }

  /**
   * Recovery: every interrupted invocation is settled and closed, and its attempt counted, before any
   * new one. Ready once that is durable: the views catch up over recovery's events in the background
   * (the first tick catches them up too; `viewsCurrent()` and `close()` wait for it).
   */
  async start(): Promise<void> {
    const view = await readRecoveryView(this.openInvocations, this.context.progress);
    this.currentTick = await restoreSchedulers(this.context, view?.schedulerSnapshots, this.currentTick);
    if (this.context.options.ownership === undefined) await recoverInterrupted(this.context, view?.open);
    else await recoverSchedulers(this.context, this.ownedEntries((participant) => this.context.owns(participant)));
    this.started = true;
    this.recoveryViews = catchUpView(this.openInvocations, this.context.progress);
  }

  /**
   * Takes over participants whose lease this engine just got (another engine stopped or died): reads
   * their schedulers to the end of their streams, recovers exactly their interrupted invocations
   * (docs/rules.md, recovery), and moves the clock to the last tick their schedulers ran, if later.
   * Runs between ticks, never during one.
   */
  takeOver(participants: readonly string[]): Promise<void> {
    const run = this.advancing.then(async () => {
      const wanted = new Set(participants);
      const entries = this.ownedEntries((participant) => wanted.has(participant));
      for (const entry of entries) {
        await must(entry.scheduler.loadFromCheckpoint(), `loading ${entry.scheduler.stream}`);
        const schedulerTick = entry.scheduler.state.lastTick;
        if (schedulerTick !== null && schedulerTick > this.currentTick) this.currentTick = schedulerTick;
      }
      await recoverSchedulers(this.context, entries);
    });
    this.advancing = run.catch(() => undefined);
    return run;
  }

  private ownedEntries(selected: (participant: string) => boolean): PolicyParticipant[] {
    const entries: PolicyParticipant[] = [];
    for (const [participant, ofParticipant] of this.context.schedulers.byParticipant) {
      if (selected(participant)) entries.push(...ofParticipant);
    }
    return entries;
  }

  /** Resolves once the views have caught up over what start() recovered. */
  async viewsCurrent(): Promise<void> {
    await this.recoveryViews;
  }

  /**
   * Moves the shared clock `ticks` forward, handing each due attempt to its scheduler, which runs up to
   * its policy's `max_in_flight` attempts at once: a slow attempt holds back neither another
   * participant's attempts nor its own scheduler's next ones below that bound. With `until: 'finished'`
   * (the default) resolves once every attempt those ticks started has finished; with `'started'`, once
   * each has started or been refused, a tick of a scheduler at its `max_in_flight` only until the next
   * attempt anywhere ends (it waits in its lane), so the clock moves on while attempts run and a full
   * scheduler holds back no other; `idle()` then waits for them.
   */
  advance(ticks = 1, until: AdvanceUntil = 'finished'): Promise<void> {
    const run = this.advancing.then(async () => {
      if (!this.started) throw new Error('start() the runtime manager (recovery) before advancing the clock');
      const target = this.currentTick + ticks;
      const taken: Promise<void>[] = [];
      while (this.currentTick < target) {
        // Ticks on which no action is due change nothing: the clock goes straight to the next due one.
        const tick = Math.min(target, this.nextDueTick() ?? target);
        for (const entry of this.context.schedulers.byKey.values()) {
          if (isCadenceTick(entry.schedulerPolicy, tick) && this.context.owns(entry.schedulerPolicy.participant_address)) taken.push(this.lanes.enqueue(entry, tick));
        }
        this.currentTick = tick;
      }
      if (until === 'finished') await this.lanes.idle();
      else await Promise.all(taken);
      if (taken.length > 0) await catchUpView(this.openInvocations, this.context.progress);
    });
    this.advancing = run.catch(() => undefined);
    return run;
  }

  /** The first tick after the current one on which an action of a participant this engine runs falls due; undefined when it runs none. */
  nextDueTick(): number | undefined {
    let next: number | undefined;
    for (const entry of this.context.schedulers.byKey.values()) {
      if (!this.context.owns(entry.schedulerPolicy.participant_address)) continue;
      const due = nextCadenceTick(entry.schedulerPolicy, this.currentTick);
      if (next === undefined || due < next) next = due;
    }
    return next;
  }

  /** Resolves once every attempt started or waiting for a slot has finished (after `advance(n, 'started')`). */
  async idle(): Promise<void> {
    await this.advancing;
    await this.lanes.idle();
    await catchUpView(this.openInvocations, this.context.progress);
  }

  /** Advances one tick every `intervalMs` until `stopClock()` or `close()`. */
  startClock(intervalMs: number): void {
    if (!this.driverStopped) return;
    this.driverStopped = false;
    const step = (): void => {
      this.driver = setTimeout(() => {
        this.advance(1, 'started')
          .catch((error: unknown) => this.context.progress({ kind: 'storage_failure', reason: String(error) }))
          .finally(() => {
            if (!this.driverStopped) step();
          });
      }, intervalMs);
    };
    step();
  }

  stopClock(): void {
    this.driverStopped = true;
    if (this.driver !== undefined) clearTimeout(this.driver);
    this.driver = undefined;
  }

  /**
   * A shared-clock reset: every policy's execution service adds 1 to its execution generation, so
   * invocations opened afterwards refuse requests that carry an older one (`stale_generation`).
   */
  resetSharedClock(): Promise<OperatorResult> {
    return resetSharedClock(this.context);
  }

  setCrossingPolicyInstalled(installed: boolean): void {
    this.context.crossingPolicy.installed = installed;
  }

  /** The outer operation or a tool action (a child of it), at this moment. */
  getOperation(operationId: string): Promise<OperationStatus | undefined> {
    return operationStatus(this.context, operationId);
  }

  /** An operator's resolution of an indeterminate tool action; the scheduler stays stopped until restarted. */
  resolve(actionInstanceId: string, effect: ResolvedEffect, evidenceRef: string): Promise<OperatorResult> {
    return resolve(this.context, actionInstanceId, effect, evidenceRef);
  }

  /** Restarts a participant's stopped schedulers (every policy it takes part in) once none has an unresolved action. */
  restartScheduler(participantAddress: string): Promise<OperatorResult> {
    return restartScheduler(this.context, participantAddress);
  }

  /** Whether the participant's scheduler under `policyAddress` is stopped, and why. */
  schedulerStatus(policyAddress: string, participantAddress: string): SchedulerState | undefined {
    return this.context.schedulers.byKey.get(schedulerKey(this.context.options.episodeId, policyAddress, participantAddress))?.scheduler.state;
  }

  /**
   * Stops the driver, drops the due ticks still waiting for a free slot, and waits for the attempts in
   * flight; the store stays open (its owner closes it).
   */
  async close(): Promise<void> {
    this.stopClock();
    await this.advancing;
    this.lanes.dropWaiting();
    // Failures were reported as progress when they happened.
    await this.lanes.idle().catch(() => undefined);
    await this.recoveryViews;
  }
}
