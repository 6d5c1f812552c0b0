import type { InvocationToolActionPort } from '../ports/invocation-port';

/**
 * The contract a participant runtime implements (the autonomous participant runtime of RAES). The
 * manager calls `admitAction` once per due outer action; with the tool-actions claim it first calls
 * `attachInvocationToolActions` with that invocation's port.
 */

/** One due outer (autonomous) action, as the scheduler built it. */
export interface OuterActionRequest {
  readonly action_instance_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_contract_address: string;
  readonly observation_boundary_address: string;
  readonly target_addresses: readonly string[];
  readonly observation_point: string;
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
  readonly participant_implementation_ref: string;
}

/** What the participant can know of the shared clock when its action falls due. */
export interface ParticipantSnapshot {
  readonly clock_address: string;
  readonly tick: number;
  readonly attempt: number;
}

export interface ParticipantRuntime {
  /** Runs the outer action natively; resolves with a ParticipantActionResultModel. */
  admitAction(request: OuterActionRequest, snapshot: ParticipantSnapshot): Promise<unknown>;
  attachInvocationToolActions?(port: InvocationToolActionPort): void;
}

/** What a harness gets for one invocation: the request and, with the claim, its port. */
export type Harness = (
  request: OuterActionRequest,
  snapshot: ParticipantSnapshot,
  port: InvocationToolActionPort | undefined,
) => Promise<unknown>;

/**
 * The common work of a runtime whose invocations run a harness: ports are kept by invocation id from
 * attachment and handed, once, to the harness running that invocation.
 */
export class HarnessRuntime implements ParticipantRuntime {
  private readonly ports = new Map<string, InvocationToolActionPort>();

  constructor(private readonly harness: Harness) {}

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.ports.set(port.invocation_action_instance_id, port);
  }

  admitAction(request: OuterActionRequest, snapshot: ParticipantSnapshot): Promise<unknown> {
    const port = this.ports.get(request.action_instance_id);
    this.ports.delete(request.action_instance_id);
    return this.harness(request, snapshot, port);
  }
}

/** A runtime without the attach method: registered against a claim, it is refused; unclaimed, it runs plainly. */
export class PlainRuntime implements ParticipantRuntime {
  constructor(private readonly run: (request: OuterActionRequest, snapshot: ParticipantSnapshot) => Promise<unknown>) {}

  admitAction(request: OuterActionRequest, snapshot: ParticipantSnapshot): Promise<unknown> {
    return this.run(request, snapshot);
  }
}
