import {
  decideAfterDispatchEnded,
  type ActionResult,
  type InvocationAnswer,
  type InvocationEvent,
  type InvocationPortValues,
  type InvocationState,
  type PortCommand,
  type RefusalCode,
  type ToolActionRequest,
} from '../invocation';
import type { InvocationAggregate } from './aggregates';
import type { RemoteAccess } from '../ports/remote-ports';
import type { AdmitAndDispatchResult, AdmitResult, DispatchReceipt, InvocationToolActionPort, SettleReceipt } from '../ports/invocation-port';
import type { Handled } from './stream-aggregate';
import { toolCallRefused, type RefusalListener } from './port-refusals';

/**
 * The engine's participant-crossing switch. The manager owns it and flips `installed`; every port
 * reads it when an admission arrives (reading a flag is not a call into the manager).
 */
export interface CrossingPolicySwitch {
  readonly installed: boolean;
}

/** Sees each batch of events the port made durable (progress display); it cannot change them. */
export type PortEventListener = (events: readonly InvocationEvent[]) => void;

type Outcome = Handled<InvocationState, InvocationEvent, InvocationAnswer>;

const LEDGER_UNAVAILABLE: RefusalCode = 'ledger_unavailable';

const ledgerMessage = (reason: string): string => `the event store did not retain the call: ${reason}`;

const receipt = (outcome: Outcome): SettleReceipt => {
  if (outcome.kind === 'unavailable') return { accepted: false, refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) };
  const answer = outcome.answer;
  return answer.kind === 'refused' ? { accepted: false, refusal: answer.refusal.code, message: answer.refusal.message } : { accepted: true };
};

/** The action an admission answer admits: the new one, or the original of a replayed tool_call_id. */
const admittedActionOf = (answer: InvocationAnswer): string | undefined => {
  switch (answer.kind) {
    case 'admitted':
    case 'admitted_and_dispatched':
      return answer.admission.action_instance_id;
    case 'replayed':
    case 'replayed_and_dispatched':
      return answer.original.actionInstanceId;
    case 'refused':
      return answer.original?.actionInstanceId;
    default:
      return undefined;
  }
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
    private readonly refusals?: RefusalListener,
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
    if (outcome.kind === 'unavailable') {
      return { admitted: false, refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) };
    }
    const answer = outcome.answer;
    if (answer.kind === 'refused') return { admitted: false, refusal: answer.refusal.code, message: answer.refusal.message };
    const admitted = admittedActionOf(answer);
    if (admitted === undefined) return { admitted: false, refusal: 'request_invalid', message: `admission answered ${answer.kind}` };
    return { admitted: true, action_instance_id: admitted };
  }

  /**
   * Admission and dispatch as one decision and one append. The decision says which of the two refused:
   * a refusal by dispatch (after a replayed tool_call_id) answers the original action as admitted, as
   * does a replay whose dispatch the store did not retain. A call refused because the port is closing
   * is refused by admission, so it is never answered as admitted, even for a replayed tool_call_id.
   */
  async admitAndDispatch(request: ToolActionRequest): Promise<AdmitAndDispatchResult> {
    const outcome = await this.run({
      type: 'AdmitAndDispatchToolAction',
      at: this.now(),
      request,
      crossingPolicyInstalled: this.crossingPolicy.installed,
    });
    const answer = outcome.answer;
    const refused =
      outcome.kind === 'unavailable'
        ? { refusal: LEDGER_UNAVAILABLE, message: ledgerMessage(outcome.reason) }
        : answer.kind === 'refused'
          ? { refusal: answer.refusal.code, message: answer.refusal.message }
          : undefined;
    // Unretained, a new admission did not happen; a replay's original admission stands.
    const admitted = outcome.kind === 'unavailable' && answer.kind === 'admitted_and_dispatched' ? undefined : admittedActionOf(answer);
    if (refused === undefined) {
      if (admitted !== undefined) return { admitted: true, action_instance_id: admitted, accepted: true };
      return { admitted: false, refusal: 'request_invalid', message: `admission and dispatch answered ${answer.kind}` };
    }
    if (admitted === undefined) return { admitted: false, refusal: refused.refusal, message: refused.message };
    return { admitted: true, action_instance_id: admitted, accepted: false, refusal: refused.refusal, message: refused.message };
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

  private async run(command: PortCommand): Promise<Outcome> {
    // Once dispatch ended the call does not wait behind the close in the aggregate's queue.
    const ended = decideAfterDispatchEnded(command, this.closing);
    const outcome: Outcome =
      ended !== undefined ? { kind: 'decided', events: ended.events, answer: ended.answer, state: this.aggregate.state } : await this.aggregate.handle(command);
    if (outcome.kind === 'decided' && outcome.events.length > 0 && this.listener !== undefined) {
      try {
        this.listener(outcome.events);
      } catch {
        // A failing progress display must not turn a durable call into a failed one.
      }
    }
    if (this.refusals !== undefined) this.reportRefusal(command, outcome);
    return outcome;
  }

  /** Tells the refusal listener (telemetry) of a refused call: a refusal leaves nothing in the log. */
  private reportRefusal(command: PortCommand, outcome: Outcome): void {
    const code = outcome.kind === 'unavailable' ? LEDGER_UNAVAILABLE : outcome.answer.kind === 'refused' ? outcome.answer.refusal.code : undefined;
    if (code === undefined) return;
    try {
      this.refusals!(toolCallRefused(this.values, command, code, outcome.state));
    } catch {
      // A failing listener must not change the port's answer.
    }
  }
}
