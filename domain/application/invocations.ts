import { refusalOf, type AdmissionContext, type InvocationCloseOutcome, type InvocationState, type OuterAction } from '../invocation';
import { actorProvenanceOf, buildAdmissionContext, findImplementation } from '../manifest';
import type { AttemptStarted } from '../scheduler';
import { actorProvenance } from '../addresses';
import { invocationAggregate, type InvocationAggregate } from './aggregates';
import { LocalInvocationPort } from './local-invocation-port';
import type { OuterActionRequest, ParticipantSnapshot } from './participant-runtime';
import type { PolicyParticipant } from './policy-participants';
import { reportToolProgress } from './progress';
import type { RuntimeContext } from './runtime-context';
import type { AttachedPort } from './runtime-options';

/** How an invocation ended for its attempt: closed (or never opened), or left open by a store that failed. */
export type InvocationEnd = { readonly kind: 'closed'; readonly state: InvocationState } | { readonly kind: 'close_unwritten' };

/** Appends of InvocationClosed tried before the invocation is left open for recovery. */
const CLOSE_ATTEMPTS = 3;

/** Runs an attempt as an invocation: opens it, attaches and activates its port around admitAction, closes it. */
export const runInvocation = async (
  context: RuntimeContext,
  entry: PolicyParticipant,
  attempt: AttemptStarted,
  request: OuterActionRequest,
  snapshot: ParticipantSnapshot,
): Promise<InvocationEnd> => {
  const { options } = context;
  const invocationId = attempt.action_instance_id;
  const aggregate = invocationAggregate(options.store, options.episodeId, invocationId);
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
    at: context.now(),
    portValues,
    outerAction: outerActionOf(context, entry, request),
    admissionContext: admissionContextOf(context, entry),
  });
  const notOpened = opened.kind === 'unavailable' ? opened.reason : refusalOf(opened.answer)?.message;
  if (notOpened !== undefined) {
    context.progress({ kind: 'storage_failure', reason: notOpened });
    return { kind: 'closed', state: aggregate.state };
  }
  context.running.set(invocationId, aggregate);
  context.progress({ kind: 'invocation_opened', invocation_action_instance_id: invocationId, tick: snapshot.tick });
  // The port reports to the progress callback directly: it holds nothing of the manager.
  const port = new LocalInvocationPort(portValues, aggregate, options.clock, context.portListener, context.crossingPolicy, context.refusalListener);
  const remote = options.remotePorts?.grant(port);
  if (remote !== undefined) port.remote = remote;
  const attached: AttachedPort = port;

  const close = await dispatchInvocation(context, aggregate, attached, request, snapshot);
  port.endDispatch();
  const closed = await closeInvocation(context, aggregate, close);
  if (remote !== undefined) options.remotePorts?.revoke(invocationId);
  context.running.delete(invocationId);
  if (closed.kind === 'decided') reportToolProgress(closed.events, options.onProgress);
  if (closed.kind !== 'unavailable') return { kind: 'closed', state: aggregate.state };
  context.progress({ kind: 'storage_failure', reason: `${invocationId} stays open for recovery: ${closed.reason}` });
  return { kind: 'close_unwritten' };
};

const admissionContextOf = (context: RuntimeContext, entry: PolicyParticipant): AdmissionContext => {
  if (entry.admissionContext === undefined) {
    entry.admissionContext = buildAdmissionContext(
      context.options.compiled,
      context.options.manifest,
      entry.policy.address,
      entry.schedulerPolicy.participant_address,
    );
  }
  return entry.admissionContext;
};

/** The outer action of a request; requests of one policy-participant and contract differ in nothing else here. */
const outerActionOf = (context: RuntimeContext, entry: PolicyParticipant, request: OuterActionRequest): OuterAction => {
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
    actor_provenance: actorProvenanceOfEntry(context, entry),
  };
  entry.outerActions.set(request.action_contract_address, outerAction);
  return outerAction;
};

const actorProvenanceOfEntry = (context: RuntimeContext, entry: PolicyParticipant): string => {
  const implementation = findImplementation(context.options.manifest, entry.policy.implementationRef);
  return implementation === undefined ? actorProvenance(entry.policy.implementationRef, 'unversioned') : actorProvenanceOf(implementation);
};

/**
 * Attaches the port, activates it and runs admitAction. When the store cannot record the activation,
 * admitAction is not called (every port call would be refused invocation_inactive): the invocation
 * closes as if it threw and its attempt is consumed.
 */
const dispatchInvocation = async (
  context: RuntimeContext,
  aggregate: InvocationAggregate,
  attached: AttachedPort,
  request: OuterActionRequest,
  snapshot: ParticipantSnapshot,
): Promise<InvocationCloseOutcome> => {
  try {
    context.options.runtime.attachInvocationToolActions?.(attached);
    const activated = await aggregate.handle({ type: 'ActivateInvocation', at: context.now() });
    const reason = activated.kind === 'unavailable' ? activated.reason : refusalOf(activated.answer)?.message;
    if (reason !== undefined) {
      context.progress({ kind: 'storage_failure', reason: `${request.action_instance_id} could not begin dispatch: ${reason}` });
      return { outcome: 'threw' };
    }
    return { outcome: 'returned', result: await context.options.runtime.admitAction(request, snapshot) };
  } catch {
    return { outcome: 'threw' };
  }
};

/** Appends the close, retrying a store that failed: until it is written the attempt cannot be counted. */
const closeInvocation = async (context: RuntimeContext, aggregate: InvocationAggregate, close: InvocationCloseOutcome) => {
  let closed = await aggregate.handle({ type: 'CloseInvocation', at: context.now(), close });
  for (let retry = 1; retry < CLOSE_ATTEMPTS && closed.kind === 'unavailable'; retry++) {
    closed = await aggregate.handle({ type: 'CloseInvocation', at: context.now(), close });
  }
  return closed;
};
