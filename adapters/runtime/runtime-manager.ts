import {
  isCadenceTick,
  type AttemptOutcome,
  type AttemptStarted,
  type SchedulerPolicy,
  type SchedulerState,
} from '../../domain/scheduler';
import {
  ActionResultCodec,
  unresolvedIndeterminateActions,
  type AdmissionContext,
  type InvocationCloseOutcome,
  type InvocationEvent,
  type InvocationState,
  type OuterAction,
  type ResolvedEffect,
} from '../../domain/invocation';
import {
  actorProvenanceOf,
  buildAdmissionContext,
  findImplementation,
  registerRuntime,
  type ManifestDocument,
  type Registration,
} from '../../domain/manifest';
import { actionContractAt, type CompiledPolicy, type CompiledScenario, type Diagnostic } from '../../domain/scenario';
import { actorProvenance } from '../../domain/addresses';
import { schedulerStream } from '../../domain/streams';
import type { Database } from 'better-sqlite3';
import type { EventStore } from '../event-store';
import { openInvocationsIndex } from './open-invocations-index';
import {
  invocationAggregate,
  schedulerAggregate,
  schedulerEventCodec,
  type InvocationAggregate,
  type SchedulerAggregate,
} from './aggregates';
import { LocalInvocationPort, type PortEventListener } from './invocation-port';
import { operationInInvocation, outerOperationOfAttempt, parentOperationOf, type OperationStatus } from './operations';
import type { OuterActionRequest, ParticipantRuntime, ParticipantSnapshot } from './participant-runtime';
import type { InvocationToolActionPort } from './port';
import type { RemoteAccess } from './remote/remote-access';
import type { RemotePortServer } from './remote/remote-port-server';
import type { SchedulerSnapshot } from './scheduler-snapshots';

/** What a progress display can follow; never carries tool arguments or results. */
export type RuntimeProgress =
  | { readonly kind: 'invocation_opened'; readonly invocation_action_instance_id: string; readonly tick: number }
  | {
      readonly kind: 'invocation_closed';
      readonly invocation_action_instance_id: string;
      readonly outcome: AttemptOutcome;
      readonly indeterminate_action_ids: readonly string[];
      readonly recovered: boolean;
    }
  | { readonly kind: 'tool_action_admitted'; readonly action_instance_id: string; readonly tool_call_id: string }
  | { readonly kind: 'tool_action_settled'; readonly action_instance_id: string; readonly settlement: string }
  | { readonly kind: 'scheduler_stopped'; readonly participant_address: string; readonly reason: string }
  | { readonly kind: 'storage_failure'; readonly reason: string };

/** Tells a progress callback which tool actions the events admitted and settled. */
const reportToolProgress = (events: readonly InvocationEvent[], onProgress: ((progress: RuntimeProgress) => void) | undefined): void => {
  if (onProgress === undefined) return;
  for (const event of events) {
    try {
      if (event.type === 'ToolActionAdmitted') {
        onProgress({ kind: 'tool_action_admitted', action_instance_id: event.action_instance_id, tool_call_id: event.tool_call_id });
      } else if (event.type === 'ToolActionSettled') {
        onProgress({ kind: 'tool_action_settled', action_instance_id: event.action_instance_id, settlement: event.settlement });
      }
    } catch {
      // A failing display never stops the engine.
    }
  }
};

/** Keeps the open-invocations read model current and lists it (projections/open-invocations). */
export interface OpenInvocationsIndex {
  catchUp(): Promise<unknown>;
  listOpen(): readonly { readonly invocation_action_instance_id: string }[];
  /** Scheduler states by stream, as of the last catch-up; without them start() folds every scheduler stream. */
  schedulerSnapshots?(): ReadonlyMap<string, SchedulerSnapshot>;
}

export interface RuntimeManagerOptions {
  readonly compiled: CompiledScenario;
  readonly manifest: ManifestDocument;
  readonly runtime: ParticipantRuntime;
  readonly store: EventStore;
  readonly episodeId: string;
  readonly clock: () => Date;
  readonly crossingPolicyInstalled?: boolean;
  /** The views database: recovery reads the open-invocations view from it, and the manager keeps it current. */
  readonly views?: Database;
  /** Another source of open invocations; by default the open-invocations view of `views`. */
  readonly openInvocations?: OpenInvocationsIndex;
  /** When given, each attached port is also reachable over it with a per-invocation secret. */
  readonly remotePorts?: RemotePortServer;
  readonly onProgress?: (progress: RuntimeProgress) => void;
}

/** The port handed to `attachInvocationToolActions`; `remote` is present when remote ports are on. */
export interface AttachedPort extends InvocationToolActionPort {
  readonly remote?: RemoteAccess;
}

export type OperatorResult = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };

export class RegistrationRefused extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(`the participant runtime's claim is refused: ${diagnostics.map((d) => d.message).join(' ')}`);
    this.name = 'RegistrationRefused';
  }
}

interface PolicyParticipant {
  readonly policy: CompiledPolicy;
  readonly schedulerPolicy: SchedulerPolicy;
  readonly scheduler: SchedulerAggregate;
  admissionContext: AdmissionContext | undefined;
  /** One outer action per action contract, shared by the open invocations that perform it. */
  readonly outerActions: Map<string, OuterAction>;
}

const schedulerPolicyOf = (policy: CompiledPolicy, participantAddress: string): SchedulerPolicy | undefined => {
  if (policy.profile !== 'participant-autonomous-execution/v1') return undefined;
  return {
    policy_address: policy.address,
    participant_address: participantAddress,
    clock_address: policy.clockAddress,
    action_order: policy.actionOrder,
    start_tick: policy.cadence.startTick,
    cadence_ticks: policy.cadence.cadenceTicks,
    max_action_attempts: policy.maxActionAttempts,
    max_in_flight: policy.maxInFlight,
    failure_policy: policy.failurePolicy,
  };
};

const keyOf = (policyAddress: string, participantAddress: string): string => schedulerStream(policyAddress, participantAddress);

/**
 * Recovers invocations many at a time: each one's appends then share group commits (one fsync for a
 * batch instead of one each), so recovery time grows with the open invocations' events, not with their
 * number of round trips to the disk. Commands on one scheduler still run one after another.
 */
const RECOVERY_BATCH = 256;

const recoverInBatches = async (invocationIds: readonly string[], recover: (invocationId: string) => Promise<void>): Promise<void> => {
  const seen = new Set<string>();
  const unique = invocationIds.filter((id) => !seen.has(id) && (seen.add(id), true));
  for (let first = 0; first < unique.length; first += RECOVERY_BATCH) {
    await Promise.all(unique.slice(first, first + RECOVERY_BATCH).map(recover));
  }
};

/** How an invocation's closure counts for its attempt. */
const attemptOutcomeOf = (state: InvocationState): AttemptOutcome => {
  if (state.status !== 'opened' || state.lifecycle.status !== 'closed') return 'consumed';
  const closure = state.lifecycle.closure;
  if (closure.outcome !== 'returned' || state.lifecycle.recovered) return 'consumed';
  return closure.actionResult.status === 'succeeded' ? 'succeeded' : 'failed';
};

/** The unresolved indeterminate tool actions of a participant's schedulers. */
const unresolvedOf = (entries: readonly PolicyParticipant[]): string[] => {
  const unresolved: string[] = [];
  for (const entry of entries) for (const id of entry.scheduler.state.unresolved) unresolved.push(id);
  return unresolved;
};

/** How an invocation ended for its attempt: closed (or never opened), or left open by a store that failed. */
type InvocationEnd = { readonly kind: 'closed'; readonly state: InvocationState } | { readonly kind: 'close_unwritten' };

/** Appends of InvocationClosed tried before the invocation is left open for recovery. */
const CLOSE_ATTEMPTS = 3;

const indeterminateIdsOf = (state: InvocationState): string[] =>
  unresolvedIndeterminateActions(state).map((record) => record.actionInstanceId);

/**
 * The live system of SPEC.md sections 5 to 7: runs each v1 policy on a shared logical clock, opens an
 * invocation per due outer action, attaches and activates its port around `admitAction`, closes it,
 * counts the attempt, and recovers interrupted invocations on start.
 */
export class RuntimeManager {
  readonly registration: Registration;
  private readonly schedulers = new Map<string, PolicyParticipant>();
  /** Each participant's schedulers, one per policy it takes part in. */
  private readonly schedulersByParticipant = new Map<string, PolicyParticipant[]>();
  /** Schedulers held back by another policy's unresolved indeterminate action (reported once per hold). */
  private readonly held = new Set<PolicyParticipant>();
  private readonly running = new Map<string, InvocationAggregate>();
  /** Read by every port at admission time (SPEC.md rule 9). */
  private readonly crossingPolicy: { installed: boolean };
  private currentTick = -1;
  private started = false;
  private advancing: Promise<void> = Promise.resolve();
  private driver: NodeJS.Timeout | undefined;
  private driverStopped = true;
  private readonly openInvocations: OpenInvocationsIndex | undefined;
  /** One listener for every port (a closure per port would be held by each open invocation). */
  private readonly portListener: PortEventListener | undefined;

  constructor(private readonly options: RuntimeManagerOptions) {
    this.registration = registerRuntime(options.runtime, options.manifest, options.compiled);
    if (!this.registration.attachPort && this.registration.reason === 'claim-refused') {
      throw new RegistrationRefused(this.registration.diagnostics);
    }
    this.crossingPolicy = { installed: options.crossingPolicyInstalled ?? false };
    const onProgress = options.onProgress;
    this.portListener = onProgress === undefined ? undefined : (events) => reportToolProgress(events, onProgress);
    this.openInvocations =
      options.openInvocations ?? (options.views === undefined ? undefined : openInvocationsIndex(options.store, options.views));
    for (const policy of options.compiled.policies) {
      for (const participant of policy.participantAddresses) {
        const schedulerPolicy = schedulerPolicyOf(policy, participant);
        if (schedulerPolicy === undefined) continue;
        const entry: PolicyParticipant = {
          policy,
          schedulerPolicy,
          scheduler: schedulerAggregate(options.store, policy.address, participant),
          admissionContext: undefined,
          outerActions: new Map(),
        };
        this.schedulers.set(keyOf(policy.address, participant), entry);
        const ofParticipant = this.schedulersByParticipant.get(participant);
        if (ofParticipant === undefined) this.schedulersByParticipant.set(participant, [entry]);
        else ofParticipant.push(entry);
      }
    }
  }

  /** True when ports are attached: the manifest claims the composition and the runtime can take them. */
  get attachesPorts(): boolean {
    return this.registration.attachPort;
  }

  /** The last tick of the shared logical clock that ran (-1 before the first). */
  get tick(): number {
    return this.currentTick;
  }

  /** Recovery: every interrupted invocation is settled and closed, and its attempt counted, before any new one. */
  async start(): Promise<void> {
    // The views first: the scheduler snapshots are then current to the end of the log.
    const caughtUp = this.openInvocations !== undefined && (await this.catchUpView());
    const snapshots = caughtUp ? this.openInvocations?.schedulerSnapshots?.() : undefined;
    for (const entry of this.schedulers.values()) {
      const snapshot = snapshots?.get(entry.scheduler.stream);
      if (snapshot === undefined || !entry.scheduler.restore(snapshot.state, snapshot.revision)) {
        await this.must(entry.scheduler.load(), `loading ${entry.scheduler.stream}`);
      }
      const lastTick = entry.scheduler.state.lastTick;
      if (lastTick !== null && lastTick > this.currentTick) this.currentTick = lastTick;
    }
    const owners = new Map<string, PolicyParticipant>();
    for (const entry of this.schedulers.values()) {
      for (const actionInstanceId of entry.scheduler.state.inFlight.values()) owners.set(actionInstanceId, entry);
    }
    if (this.openInvocations !== undefined) {
      await recoverInBatches(
        this.openInvocations.listOpen().map((row) => row.invocation_action_instance_id),
        (invocationId) => this.recoverInvocation(invocationId, owners.get(invocationId)),
      );
    }
    // Attempts still in flight: interrupted before their invocation opened, after it closed, or not yet
    // in the open-invocations view.
    const stillInFlight: string[] = [];
    for (const entry of this.schedulers.values()) {
      for (const actionInstanceId of entry.scheduler.state.inFlight.values()) stillInFlight.push(actionInstanceId);
    }
    await recoverInBatches(stillInFlight, (invocationId) => this.recoverInvocation(invocationId, owners.get(invocationId)));
    await this.catchUpView();
    this.started = true;
  }

  /** Moves the shared clock `ticks` forward, running every due attempt in tick order. */
  advance(ticks = 1): Promise<void> {
    const run = this.advancing.then(async () => {
      if (!this.started) throw new Error('start() the runtime manager (recovery) before advancing the clock');
      const target = this.currentTick + ticks;
      while (this.currentTick < target) {
        const tick = this.currentTick + 1;
        const due: Promise<void>[] = [];
        for (const entry of this.schedulers.values()) {
          if (isCadenceTick(entry.schedulerPolicy, tick)) due.push(this.runAttempt(entry, tick));
        }
        await Promise.all(due);
        this.currentTick = tick;
        if (due.length > 0) await this.catchUpView();
      }
    });
    this.advancing = run.catch(() => undefined);
    return run;
  }

  /** Advances one tick every `intervalMs` until `stopClock()` or `close()`. */
  startClock(intervalMs: number): void {
    if (!this.driverStopped) return;
    this.driverStopped = false;
    const step = (): void => {
      this.driver = setTimeout(() => {
        this.advance(1)
          .catch((error: unknown) => this.progress({ kind: 'storage_failure', reason: String(error) }))
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
  async resetSharedClock(): Promise<OperatorResult> {
    for (const entry of this.schedulers.values()) {
      const reset = await entry.scheduler.handle({ type: 'ResetSharedClock', at: this.now() });
      if (reset.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: reset.reason };
      if (reset.kind === 'refused') return { ok: false, code: reset.refusal.code, message: reset.refusal.message };
    }
    return { ok: true };
  }

  setCrossingPolicyInstalled(installed: boolean): void {
    this.crossingPolicy.installed = installed;
  }

  /** The outer operation or a tool action (a child of it), at this moment. */
  async getOperation(operationId: string): Promise<OperationStatus | undefined> {
    const invocationId = parentOperationOf(operationId) ?? operationId;
    const live = this.running.get(invocationId);
    if (live !== undefined) return operationInInvocation(live.state, operationId);
    const aggregate = invocationAggregate(this.options.store, invocationId);
    await this.must(aggregate.load(), `reading ${aggregate.stream}`);
    const found = operationInInvocation(aggregate.state, operationId);
    if (found !== undefined || parentOperationOf(operationId) !== undefined) return found;
    // No invocation stream: an outer operation that ran without the claim.
    const [policyAddress, participantAddress] = operationId.split(':');
    if (policyAddress === undefined || participantAddress === undefined) return undefined;
    const read = await this.options.store.readStream(schedulerStream(policyAddress, participantAddress));
    if (read.kind === 'storage_failure') throw new Error(read.reason);
    const events = [];
    for (const recorded of read.events) {
      const event = schedulerEventCodec.fromRecorded(recorded);
      if (typeof event !== 'string') events.push(event);
    }
    return outerOperationOfAttempt(events, operationId, this.options.episodeId);
  }

  /** An operator's resolution of an indeterminate tool action; the scheduler stays stopped until restarted. */
  async resolve(actionInstanceId: string, effect: ResolvedEffect, evidenceRef: string): Promise<OperatorResult> {
    const invocationId = parentOperationOf(actionInstanceId);
    if (invocationId === undefined) {
      return { ok: false, code: 'action_unknown', message: `${actionInstanceId} is not a tool action id (<invocation>:tool=<n>)` };
    }
    const aggregate = this.running.get(invocationId) ?? invocationAggregate(this.options.store, invocationId);
    const loaded = await aggregate.load();
    if (loaded.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: loaded.reason };
    const resolved = await aggregate.handle({
      type: 'ResolveIndeterminateToolAction',
      at: this.now(),
      actionInstanceId,
      effect,
      evidenceRef,
    });
    if (resolved.kind === 'refused') return { ok: false, code: resolved.refusal.code, message: resolved.refusal.message };
    if (resolved.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: resolved.reason };
    const state = resolved.state;
    if (state.status !== 'opened') return { ok: false, code: 'action_unknown', message: `${invocationId} was never opened` };
    const entry = this.schedulers.get(keyOf(state.portValues.execution_scope_ref, state.portValues.participant_address));
    if (entry === undefined) return { ok: true };
    const recorded = await entry.scheduler.handle({ type: 'RecordResolution', action_instance_id: actionInstanceId, at: this.now() });
    if (recorded.kind === 'refused') return { ok: false, code: recorded.refusal.code, message: recorded.refusal.message };
    if (recorded.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: recorded.reason };
    return { ok: true };
  }

  /** Restarts a participant's stopped schedulers (every policy it takes part in) once none has an unresolved action. */
  async restartScheduler(participantAddress: string): Promise<OperatorResult> {
    const entries = this.schedulersByParticipant.get(participantAddress);
    if (entries === undefined) {
      return { ok: false, code: 'participant_unknown', message: `${participantAddress} has no v1 scheduler` };
    }
    const unresolved = unresolvedOf(entries);
    if (unresolved.length > 0) {
      return {
        ok: false,
        code: 'indeterminate_unresolved',
        message: `resolve ${unresolved.join(', ')} before restarting (raes-tools resolve <action id> --effect happened|absent --evidence <ref>)`,
      };
    }
    let restarted = false;
    let last: OperatorResult = { ok: false, code: 'scheduler_running', message: `no scheduler of ${participantAddress} is stopped` };
    for (const entry of entries) {
      if (entry.scheduler.state.status !== 'stopped') continue;
      const handled = await entry.scheduler.handle({ type: 'RestartScheduler', at: this.now() });
      if (handled.kind === 'accepted') restarted = true;
      else if (handled.kind === 'refused') last = { ok: false, code: handled.refusal.code, message: handled.refusal.message };
      else last = { ok: false, code: 'ledger_unavailable', message: handled.reason };
    }
    return restarted ? { ok: true } : last;
  }

  /** Whether the participant's scheduler under `policyAddress` is stopped, and why. */
  schedulerStatus(policyAddress: string, participantAddress: string): SchedulerState | undefined {
    return this.schedulers.get(keyOf(policyAddress, participantAddress))?.scheduler.state;
  }

  /** Stops the driver and waits for the attempts in flight; the store stays open (its owner closes it). */
  async close(): Promise<void> {
    this.stopClock();
    await this.advancing;
  }

  private async runAttempt(entry: PolicyParticipant, tick: number): Promise<void> {
    const policy = entry.schedulerPolicy;
    if (this.heldByParticipant(entry)) return;
    const started = await entry.scheduler.handle({ type: 'StartAttempt', policy, tick, at: this.now() });
    if (started.kind === 'unavailable') return this.progress({ kind: 'storage_failure', reason: started.reason });
    if (started.kind === 'refused') return;
    const attempt = started.events[0];
    if (attempt === undefined || attempt.type !== 'AttemptStarted') return;
    const request = this.outerRequest(entry, attempt);
    const snapshot: ParticipantSnapshot = { clock_address: policy.clock_address, tick, attempt: attempt.attempt };
    let outcome: AttemptOutcome;
    let indeterminate: readonly string[] = [];
    if (this.registration.attachPort) {
      const ended = await this.runInvocation(entry, attempt, request, snapshot);
      // An invocation the store could not close stays in flight: recovery closes it and counts the attempt.
      if (ended.kind === 'close_unwritten') return;
      outcome = attemptOutcomeOf(ended.state);
      indeterminate = indeterminateIdsOf(ended.state);
    } else {
      outcome = await this.runPlain(request, snapshot);
    }
    await this.finishAttempt(entry, attempt.attempt, attempt.action_instance_id, outcome, indeterminate, false);
  }

  /**
   * SPEC.md section 5: an indeterminate tool action stops its participant, so no attempt starts under
   * any policy while one of the participant's schedulers holds an unresolved action.
   */
  private heldByParticipant(entry: PolicyParticipant): boolean {
    const unresolved = unresolvedOf(this.schedulersByParticipant.get(entry.schedulerPolicy.participant_address) ?? []);
    if (unresolved.length === 0) {
      this.held.delete(entry);
      return false;
    }
    if (!this.held.has(entry) && entry.scheduler.state.status === 'running') {
      this.held.add(entry);
      this.progress({
        kind: 'scheduler_stopped',
        participant_address: entry.schedulerPolicy.participant_address,
        reason: `indeterminate tool action ${unresolved.join(', ')} unresolved; ${entry.policy.address} waits too`,
      });
    }
    return true;
  }

  private outerRequest(entry: PolicyParticipant, attempt: AttemptStarted): OuterActionRequest {
    return {
      action_instance_id: attempt.action_instance_id,
      participant_address: attempt.participant_address,
      episode_id: this.options.episodeId,
      action_contract_address: attempt.action_contract_address,
      observation_boundary_address: entry.policy.observationBoundaryAddress,
      target_addresses: actionContractAt(this.options.compiled, attempt.action_contract_address)?.targetAddresses ?? [],
      observation_point: attempt.observation_point,
      execution_scope_ref: attempt.policy_address,
      execution_generation: attempt.execution_generation,
      participant_implementation_ref: entry.policy.implementationRef,
    };
  }

  private admissionContextOf(entry: PolicyParticipant): AdmissionContext {
    if (entry.admissionContext === undefined) {
      entry.admissionContext = buildAdmissionContext(
        this.options.compiled,
        this.options.manifest,
        entry.policy.address,
        entry.schedulerPolicy.participant_address,
      );
    }
    return entry.admissionContext;
  }

  /** The outer action of a request; requests of one policy-participant and contract differ in nothing else here. */
  private outerActionOf(entry: PolicyParticipant, request: OuterActionRequest): OuterAction {
    const found = entry.outerActions.get(request.action_contract_address);
    if (
      found !== undefined &&
      found.observation_boundary_address === request.observation_boundary_address &&
      found.target_addresses === request.target_addresses
    ) {
      return found;
    }
    const outerAction: OuterAction = {
      action_contract_address: request.action_contract_address,
      observation_boundary_address: request.observation_boundary_address,
      target_addresses: request.target_addresses,
      actor_provenance: this.actorProvenance(entry),
    };
    entry.outerActions.set(request.action_contract_address, outerAction);
    return outerAction;
  }

  private actorProvenance(entry: PolicyParticipant): string {
    const implementation = findImplementation(this.options.manifest, entry.policy.implementationRef);
    return implementation === undefined ? actorProvenance(entry.policy.implementationRef, 'unversioned') : actorProvenanceOf(implementation);
  }

  private async runInvocation(
    entry: PolicyParticipant,
    attempt: AttemptStarted,
    request: OuterActionRequest,
    snapshot: ParticipantSnapshot,
  ): Promise<InvocationEnd> {
    const invocationId = attempt.action_instance_id;
    const aggregate = invocationAggregate(this.options.store, invocationId);
    const portValues = {
      invocation_action_instance_id: invocationId,
      participant_address: request.participant_address,
      episode_id: request.episode_id,
      participant_implementation_ref: request.participant_implementation_ref,
      execution_scope_ref: request.execution_scope_ref,
      execution_generation: request.execution_generation,
      observation_point: request.observation_point,
    };
    const opened = await aggregate.handle({
      type: 'OpenInvocation',
      at: this.now(),
      portValues,
      outerAction: this.outerActionOf(entry, request),
      admissionContext: this.admissionContextOf(entry),
    });
    if (opened.kind !== 'accepted') {
      this.progress({ kind: 'storage_failure', reason: opened.kind === 'refused' ? opened.refusal.message : opened.reason });
      return { kind: 'closed', state: aggregate.state };
    }
    this.running.set(invocationId, aggregate);
    this.progress({ kind: 'invocation_opened', invocation_action_instance_id: invocationId, tick: snapshot.tick });
    // The port reports to the progress callback directly: it holds nothing of the manager.
    const port = new LocalInvocationPort(portValues, aggregate, this.options.clock, this.portListener, this.crossingPolicy);
    const remote = this.options.remotePorts?.grant(port);
    if (remote !== undefined) port.remote = remote;
    const attached: AttachedPort = port;

    const close = await this.dispatchInvocation(aggregate, attached, request, snapshot);
    port.endDispatch();
    const closed = await this.closeInvocation(aggregate, close);
    if (remote !== undefined) this.options.remotePorts?.revoke(invocationId);
    this.running.delete(invocationId);
    if (closed.kind === 'accepted') this.portProgress(closed.events);
    if (closed.kind !== 'unavailable') return { kind: 'closed', state: aggregate.state };
    this.progress({ kind: 'storage_failure', reason: `${invocationId} stays open for recovery: ${closed.reason}` });
    return { kind: 'close_unwritten' };
  }

  /**
   * Attaches the port, activates it and runs admitAction. When the store cannot record the activation,
   * admitAction is not called (every port call would be refused invocation_inactive): the invocation
   * closes as if it threw and its attempt is consumed.
   */
  private async dispatchInvocation(
    aggregate: InvocationAggregate,
    attached: AttachedPort,
    request: OuterActionRequest,
    snapshot: ParticipantSnapshot,
  ): Promise<InvocationCloseOutcome> {
    try {
      this.options.runtime.attachInvocationToolActions?.(attached);
      const activated = await aggregate.handle({ type: 'ActivateInvocation', at: this.now() });
      if (activated.kind !== 'accepted') {
        const reason = activated.kind === 'refused' ? activated.refusal.message : activated.reason;
        this.progress({ kind: 'storage_failure', reason: `${request.action_instance_id} could not begin dispatch: ${reason}` });
        return { outcome: 'threw' };
      }
      return { outcome: 'returned', result: await this.options.runtime.admitAction(request, snapshot) };
    } catch {
      return { outcome: 'threw' };
    }
  }

  /** Appends the close, retrying a store that failed: until it is written the attempt cannot be counted. */
  private async closeInvocation(aggregate: InvocationAggregate, close: InvocationCloseOutcome) {
    let closed = await aggregate.handle({ type: 'CloseInvocation', at: this.now(), close });
    for (let retry = 1; retry < CLOSE_ATTEMPTS && closed.kind === 'unavailable'; retry++) {
      closed = await aggregate.handle({ type: 'CloseInvocation', at: this.now(), close });
    }
    return closed;
  }

  private async runPlain(request: OuterActionRequest, snapshot: ParticipantSnapshot): Promise<AttemptOutcome> {
    try {
      const result = ActionResultCodec.decode(await this.options.runtime.admitAction(request, snapshot));
      if (result._tag === 'Left' || result.right.action_instance_id !== request.action_instance_id) return 'consumed';
      return result.right.status === 'succeeded' ? 'succeeded' : 'failed';
    } catch {
      return 'consumed';
    }
  }

  private async finishAttempt(
    entry: PolicyParticipant,
    attempt: number,
    invocationId: string,
    outcome: AttemptOutcome,
    indeterminate: readonly string[],
    recovered: boolean,
  ): Promise<void> {
    const finished = await entry.scheduler.handle({
      type: 'FinishAttempt',
      policy: entry.schedulerPolicy,
      attempt,
      outcome,
      indeterminate_action_ids: indeterminate,
      at: this.now(),
    });
    if (finished.kind === 'unavailable') return this.progress({ kind: 'storage_failure', reason: finished.reason });
    this.progress({
      kind: 'invocation_closed',
      invocation_action_instance_id: invocationId,
      outcome,
      indeterminate_action_ids: indeterminate,
      recovered,
    });
    if (finished.kind !== 'accepted') return;
    for (const event of finished.events) {
      if (event.type === 'SchedulerStopped') {
        this.progress({ kind: 'scheduler_stopped', participant_address: entry.schedulerPolicy.participant_address, reason: event.reason });
      }
    }
  }

  /** Settles and closes an interrupted invocation (if open) and counts its attempt (if in flight under `owner`). */
  private async recoverInvocation(invocationId: string, owner: PolicyParticipant | undefined): Promise<void> {
    const aggregate = invocationAggregate(this.options.store, invocationId);
    await this.must(aggregate.load(), `reading ${aggregate.stream}`);
    let state = aggregate.state;
    if (state.status === 'opened' && state.lifecycle.status !== 'closed') {
      const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: this.now() });
      if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
      if (recovered.kind === 'accepted') this.portProgress(recovered.events);
      state = aggregate.state;
    }
    if (owner === undefined) return;
    for (const [attempt, actionInstanceId] of [...owner.scheduler.state.inFlight]) {
      if (actionInstanceId !== invocationId) continue;
      await this.finishAttempt(owner, attempt, invocationId, attemptOutcomeOf(state), indeterminateIdsOf(state), true);
    }
  }

  /**
   * Keeps the view's lag small; a failure here only delays the view (recovery re-checks in-flight
   * attempts, and folds the scheduler streams instead of trusting their snapshots). True when caught up.
   */
  private async catchUpView(): Promise<boolean> {
    try {
      await this.openInvocations?.catchUp();
      return true;
    } catch (error) {
      this.progress({ kind: 'storage_failure', reason: error instanceof Error ? error.message : String(error) });
      return false;
    }
  }

  private portProgress(events: readonly InvocationEvent[]): void {
    reportToolProgress(events, this.options.onProgress);
  }

  private progress(progress: RuntimeProgress): void {
    try {
      this.options.onProgress?.(progress);
    } catch {
      // A failing display never stops the engine.
    }
  }

  private async must(loading: Promise<{ kind: 'loaded' } | { kind: 'unavailable'; reason: string }>, what: string): Promise<void> {
    const loaded = await loading;
    if (loaded.kind === 'unavailable') throw new Error(`${what}: ${loaded.reason}`);
  }

  private now(): string {
    return this.options.clock().toISOString();
  }
}
