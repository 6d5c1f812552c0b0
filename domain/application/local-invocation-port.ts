import {
  findAdmissionByToolCallId,
  invocationDecider,
  type ActionResult,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationPortValues,
  type InvocationState,
  type RefusalCode,
  type ToolActionRequest,
} from '../invocation';
import type { InvocationAggregate } from './aggregates';
import type { RemoteAccess } from '../ports/remote-ports';
import type { AdmitAndDispatchResult, AdmitResult, DispatchReceipt, InvocationToolActionPort, SettleReceipt } from '../ports/invocation-port';
import type { Handled } from './stream-aggregate';

/**
 * The engine's participant-crossing switch. The manager owns it and flips `installed`; every port
 * reads it when an admission arrives (reading a flag is not a call into the manager).
 */
export interface CrossingPolicySwitch {
  readonly installed: boolean;
}

/** Sees each batch of events the port made durable (progress display); it cannot change them. */
export type PortEventListener = (events: readonly InvocationEvent[]) => void;

type Outcome = Handled<unknown, InvocationEvent, { readonly code: RefusalCode; readonly message: string }>;

const LEDGER_UNAVAILABLE: RefusalCode = 'ledger_unavailable';

const CLOSED = { code: 'invocation_closed', message: 'the invocation has returned; its port is closed' } as const;

const ledgerMessage = (reason: string): string => `the event store did not retain the call: ${reason}`;

const receipt = (outcome: Outcome): SettleReceipt => {
  switch (outcome.kind) {
    case 'accepted':
      return { accepted: true };
    case 'refused':
      return { accepted: false, refusal: outcome.refusal.code, message: outcome.refusal.message };
    case 'unavailable':
      return { accepted: false, refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) };
  }
};

const toolCallIdOf = (request: unknown): string | undefined => {
  if (typeof request !== 'object' || request === null) return undefined;
  const id = (request as { tool_call_id?: unknown }).tool_call_id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * The action a request was admitted as earlier, when admission alone, decided again on `state`, would
 * answer it as a replay of a known tool_call_id; undefined when admission refuses it (or would admit it
 * anew, which a refused or unretained combined call cannot mean).
 */
const replayedAdmission = (state: unknown, at: string, request: ToolActionRequest, crossingPolicyInstalled: boolean): string | undefined => {
  const held = state as InvocationState;
  const admission = invocationDecider.decide({ type: 'AdmitToolAction', at, request, crossingPolicyInstalled }, held);
  if (admission._tag === 'Left' || admission.right.length > 0) return undefined;
  const toolCallId = toolCallIdOf(request);
  return toolCallId === undefined ? undefined : findAdmissionByToolCallId(held, toolCallId)?.actionInstanceId;
};

/**
 * The in-process port of one invocation. It only turns calls into commands of the invocation's
 * aggregate (which serialises them and returns after the append is durable); it holds no reference
 * to the runtime manager.
 */
export class LocalInvocationPort implements InvocationToolActionPort {
  /** How a harness in another process reaches this port, when remote ports are on. */
  remote: RemoteAccess | undefined = undefined;

  /**
   * Set when admitAction returned or threw, before the close is appended: the port is closed from
   * that moment even when the store cannot (yet) write InvocationClosed.
   */
  private closing = false;

  /**
   * `values` is held, not copied: the manager hands the port the object the invocation's state keeps
   * as its port values, so an open invocation holds them once.
   */
  constructor(
    private readonly values: InvocationPortValues,
    private readonly aggregate: InvocationAggregate,
    private readonly clock: () => Date,
    private readonly listener: PortEventListener | undefined,
    private readonly crossingPolicy: CrossingPolicySwitch,
  ) {}

  get invocation_action_instance_id(): string {
    return this.values.invocation_action_instance_id;
  }

  get participant_address(): string {
    return this.values.participant_address;
  }

  get episode_id(): string {
    return this.values.episode_id;
  }

  get participant_implementation_ref(): string {
    return this.values.participant_implementation_ref;
  }

  get execution_scope_ref(): string {
    return this.values.execution_scope_ref;
  }

  get execution_generation(): number {
    return this.values.execution_generation;
  }

  get observation_point(): string {
    return this.values.observation_point;
  }

  async admit(request: ToolActionRequest): Promise<AdmitResult> {
    const outcome = await this.run({
      type: 'AdmitToolAction',
      at: this.now(),
      request,
      crossingPolicyInstalled: this.crossingPolicy.installed,
    });
    if (outcome.kind === 'refused') {
      return { admitted: false, refusal: outcome.refusal.code, message: outcome.refusal.message };
    }
    if (outcome.kind === 'unavailable') {
      return { admitted: false, refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) };
    }
    const event = outcome.events[0];
    if (event !== undefined && event.type === 'ToolActionAdmitted') {
      return { admitted: true, action_instance_id: event.action_instance_id };
    }
    // A replayed tool_call_id with the same request: the original decision.
    const toolCallId = toolCallIdOf(request);
    const original = toolCallId === undefined ? undefined : findAdmissionByToolCallId(this.aggregate.state, toolCallId);
    if (original === undefined) {
      return { admitted: false, refusal: 'request_invalid', message: 'the request matched no admission' };
    }
    return { admitted: true, action_instance_id: original.actionInstanceId };
  }

  /**
   * Admission and dispatch as one decision and one append. When the call is not accepted, the answer
   * says which of the two refused: admission is decided again, alone, on the state the combined call
   * was decided on. Refused there, it is admission's refusal; passed there (a replayed tool_call_id),
   * the original action is admitted and the refusal is dispatch's. A call refused because the port is
   * closing is never answered as admitted, even for a replayed tool_call_id.
   */
  async admitAndDispatch(request: ToolActionRequest): Promise<AdmitAndDispatchResult> {
    const at = this.now();
    const crossingPolicyInstalled = this.crossingPolicy.installed;
    const outcome = await this.run({ type: 'AdmitAndDispatchToolAction', at, request, crossingPolicyInstalled });
    if (outcome.kind === 'accepted') {
      const event = outcome.events[0];
      if (event !== undefined && (event.type === 'ToolActionAdmitted' || event.type === 'ToolActionDispatched')) {
        return { admitted: true, action_instance_id: event.action_instance_id, accepted: true };
      }
      return { admitted: false, refusal: 'request_invalid', message: 'the request matched no admission' };
    }
    const refusal =
      outcome.kind === 'refused'
        ? { refusal: outcome.refusal.code, message: outcome.refusal.message }
        : { refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) };
    const original = outcome.kind === 'refused' && outcome.refusal === CLOSED ? undefined : replayedAdmission(outcome.state, at, request, crossingPolicyInstalled);
    if (original === undefined) return { admitted: false, refusal: refusal.refusal, message: refusal.message };
    return { admitted: true, action_instance_id: original, accepted: false, refusal: refusal.refusal, message: refusal.message };
  }

  async dispatch(actionInstanceId: string): Promise<DispatchReceipt> {
    return receipt(await this.run({ type: 'DispatchToolAction', at: this.now(), actionInstanceId }));
  }

  async complete(actionInstanceId: string, result: ActionResult): Promise<SettleReceipt> {
    return receipt(await this.run({ type: 'CompleteToolAction', at: this.now(), actionInstanceId, result }));
  }

  async reportUnknown(actionInstanceId: string, reason: string): Promise<SettleReceipt> {
    return receipt(await this.run({ type: 'ReportToolActionUnknown', at: this.now(), actionInstanceId, reason }));
  }

  async cancel(actionInstanceId: string): Promise<SettleReceipt> {
    return receipt(await this.run({ type: 'CancelToolAction', at: this.now(), actionInstanceId }));
  }

  /** The invocation's admitAction returned or threw: every later call is refused `invocation_closed`. */
  endDispatch(): void {
    this.closing = true;
  }

  private now(): string {
    return this.clock().toISOString();
  }

  private async run(command: InvocationCommand): Promise<Outcome> {
    if (this.closing) return { kind: 'refused', refusal: CLOSED, state: this.aggregate.state };
    const outcome = await this.aggregate.handle(command);
    if (outcome.kind === 'accepted' && outcome.events.length > 0 && this.listener !== undefined) {
      try {
        this.listener(outcome.events);
      } catch {
        // A failing progress display must not turn a durable call into a failed one.
      }
    }
    return outcome;
  }
}
