import * as E from 'fp-ts/Either';
import {
  actionContractAddress,
  autonomousPolicyAddress,
  clockAddress,
  observationBoundaryAddress,
  observationPoint,
  outerActionInstanceId,
  participantAddress,
  serviceAddress,
  toolActionInstanceId,
  toolAffordanceAddress,
} from '../../../domain/addresses';
import {
  invocationDecider,
  type ActionResult,
  type AdmissionContext,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationState,
} from '../../../domain/invocation';
import { schedulerDecider, type SchedulerCommand, type SchedulerEvent, type SchedulerPolicy, type SchedulerState } from '../../../domain/scheduler';
import { invocationStream, schedulerStream } from '../../../domain/streams';
import type { EventStore, JsonValue } from '../../../domain/ports/event-store';

/**
 * Drives the real invocation and scheduler deciders and appends what they decide to a real store, so
 * projections are fed the events the engine writes.
 */

export const POLICY = autonomousPolicyAddress('participant-behavior');
export const EPISODE = 'episode-0001';
export const IMPLEMENTATION = 'harness-runtime';
export const AFFORDANCE = toolAffordanceAddress('participant-behavior', 'portal-client');
export const PROBE = actionContractAddress('probe-customer-portal-login');
export const OUTER = actionContractAddress('run-harness');
export const VIEW = observationBoundaryAddress('participant-view');
export const PORTAL = serviceAddress('customer-portal', 'http');
export const EVIDENCE = 'evidence.participant-transcript';
export const POINT = observationPoint(clockAddress('shared'), 0, 3);

export const participant = (name: string): string => participantAddress(name);

let clock = Date.parse('2026-04-11T10:00:00Z');
/** A strictly increasing timestamp: history rows are ordered by time as well as by admission. */
export const tick = (): string => new Date((clock += 1000)).toISOString();

const context = (participantAddr: string): AdmissionContext => ({
  policy_profile: 'participant-autonomous-execution/v1',
  limits: { max_tool_actions_per_invocation: 16, max_concurrent_tool_actions_per_invocation: 4 },
  affordance_bindings: [
    {
      tool_affordance_address: AFFORDANCE,
      action_contract_address: PROBE,
      participant_address: participantAddr,
      observation_boundary_addresses: [VIEW],
      target_addresses: [PORTAL],
    },
  ],
  shared_time_bound_actions: [],
  offers: [
    {
      binding_id: 'offer-probe',
      action_contract_address: PROBE,
      target_addresses: [PORTAL],
      participant_implementation_ref: IMPLEMENTATION,
      constraint_refs: [],
      evidence_refs: [],
      max_action_attempts: 4,
      max_in_flight: 2,
      timeout_seconds: 30,
      max_retries: 0,
    },
  ],
  boundary_evidence_refs: { [VIEW]: [EVIDENCE] },
  withheld_refs: [],
});

const result = (participantAddr: string, actionId: string, contract: string, episode: string): ActionResult => ({
  status: 'succeeded',
  participant_address: participantAddr,
  episode_id: episode,
  action_instance_id: actionId,
  action_contract_address: contract,
  observation_point: POINT,
  evidence_refs: [EVIDENCE],
});

let eventCounter = 0;
const append = async (store: EventStore, stream: string, events: readonly { type: string }[]): Promise<void> => {
  const appended = await store.append(
    stream,
    events.map((event) => ({ id: `event-${++eventCounter}`, type: event.type, data: event as unknown as JsonValue })),
    { expectedRevision: 'any' },
  );
  if (appended.kind !== 'appended') throw new Error(`append to ${stream} failed: ${JSON.stringify(appended)}`);
};

/** One invocation's stream, command by command through the decider. */
export class InvocationDriver {
  private state: InvocationState = invocationDecider.initialState();
  readonly id: string;
  readonly stream: string;
  private ordinal = 0;
  /** Every event the decider produced, in order (with or without a store). */
  readonly events: InvocationEvent[] = [];

  /** Without a store the driver stays pure: the events are only kept in `events`. */
  constructor(
    private readonly store: EventStore | undefined,
    readonly participantAddress: string,
    attempt: number,
    readonly episode: string = EPISODE,
  ) {
    this.id = outerActionInstanceId(POLICY, participantAddress, attempt);
    this.stream = invocationStream(episode, this.id);
  }

  async run(command: InvocationCommand): Promise<readonly InvocationEvent[]> {
    const { events, answer } = invocationDecider.decide(command, this.state);
    if (answer.kind === 'refused') throw new Error(`refused ${command.type}: ${answer.refusal.code} ${answer.refusal.message}`);
    for (const event of events) {
      this.state = invocationDecider.evolve(this.state, event);
      this.events.push(event);
    }
    if (events.length > 0 && this.store !== undefined) await append(this.store, this.stream, events);
    return events;
  }

  open(): Promise<readonly InvocationEvent[]> {
    return this.run({
      type: 'OpenInvocation',
      at: tick(),
      portValues: {
        invocation_action_instance_id: this.id,
        participant_address: this.participantAddress,
        episode_id: this.episode,
        participant_implementation_ref: IMPLEMENTATION,
        execution_scope_ref: POLICY,
        execution_generation: 0,
        observation_point: POINT,
      },
      outerAction: {
        action_contract_address: OUTER,
        observation_boundary_address: VIEW,
        target_addresses: [PORTAL],
        actor_provenance: 'participant-implementation:harness-runtime@1.0.0',
      },
      admissionContext: context(this.participantAddress),
    });
  }

  activate = () => this.run({ type: 'ActivateInvocation', at: tick() });

  /** Admits a tool call; returns its action instance id. */
  async admit(): Promise<string> {
    this.ordinal += 1;
    await this.run({
      type: 'AdmitToolAction',
      at: tick(),
      crossingPolicyInstalled: false,
      request: {
        tool_call_id: `call-${this.ordinal}`,
        invocation_action_instance_id: this.id,
        participant_address: this.participantAddress,
        episode_id: this.episode,
        participant_implementation_ref: IMPLEMENTATION,
        tool_affordance_address: AFFORDANCE,
        action_contract_address: PROBE,
        observation_boundary_address: VIEW,
        target_addresses: [PORTAL],
        execution_scope_ref: POLICY,
        execution_generation: 0,
      },
    });
    return toolActionInstanceId(this.id, this.ordinal);
  }

  dispatch = (actionId: string) => this.run({ type: 'DispatchToolAction', at: tick(), actionInstanceId: actionId });
  complete = (actionId: string) =>
    this.run({ type: 'CompleteToolAction', at: tick(), actionInstanceId: actionId, result: result(this.participantAddress, actionId, PROBE, this.episode) });
  reportUnknown = (actionId: string) =>
    this.run({ type: 'ReportToolActionUnknown', at: tick(), actionInstanceId: actionId, reason: 'timeout' });
  cancel = (actionId: string) => this.run({ type: 'CancelToolAction', at: tick(), actionInstanceId: actionId });
  returnResult = () =>
    this.run({ type: 'CloseInvocation', at: tick(), close: { outcome: 'returned', result: result(this.participantAddress, this.id, OUTER, this.episode) } });
  throwFromHarness = () => this.run({ type: 'CloseInvocation', at: tick(), close: { outcome: 'threw' } });
  recover = () => this.run({ type: 'RecoverInvocation', at: tick() });
  resolve = (actionId: string) =>
    this.run({ type: 'ResolveIndeterminateToolAction', at: tick(), actionInstanceId: actionId, effect: 'absent', evidenceRef: 'evidence.operator-review' });
}

/** A full invocation: `completedCalls` tool actions completed, one cancelled before dispatch, then a return. */
export const runReturningInvocation = async (
  store: EventStore | undefined,
  participantAddr: string,
  attempt: number,
  completedCalls = 2,
  episode: string = EPISODE,
): Promise<InvocationDriver> => {
  const driver = new InvocationDriver(store, participantAddr, attempt, episode);
  await driver.open();
  await driver.activate();
  for (let i = 0; i < completedCalls; i++) {
    const id = await driver.admit();
    await driver.dispatch(id);
    await driver.complete(id);
  }
  const cancelled = await driver.admit();
  await driver.cancel(cancelled);
  await driver.returnResult();
  return driver;
};

/** One participant's scheduler under POLICY, command by command through the decider. */
export class SchedulerDriver {
  private state: SchedulerState = schedulerDecider.initialState();
  readonly stream: string;
  readonly policy: SchedulerPolicy;

  constructor(
    private readonly store: EventStore,
    participantAddr: string,
    readonly episode: string = EPISODE,
  ) {
    this.policy = {
      policy_address: POLICY,
      participant_address: participantAddr,
      clock_address: clockAddress('shared'),
      action_order: [OUTER],
      start_tick: 1,
      cadence_ticks: 1,
      max_action_attempts: 10,
      max_in_flight: 1,
      failure_policy: 'stop',
    };
    this.stream = schedulerStream(episode, POLICY, participantAddr);
  }

  async run(command: SchedulerCommand): Promise<readonly SchedulerEvent[]> {
    const decision = schedulerDecider.decide(command, this.state);
    if (E.isLeft(decision)) throw new Error(`refused ${command.type}: ${decision.left.code} ${decision.left.message}`);
    for (const event of decision.right) this.state = schedulerDecider.evolve(this.state, event);
    if (decision.right.length > 0) await append(this.store, this.stream, decision.right);
    return decision.right;
  }
}
