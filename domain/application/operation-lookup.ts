import { schedulerStream } from '../streams';
import { invocationAggregate, schedulerEventCodec } from './aggregates';
import { operationInInvocation, outerOperationOfAttempt, parentOperationOf, type OperationStatus } from './operations';
import { must, type RuntimeContext } from './runtime-context';

/** The outer operation or a tool action (a child of it), at this moment. */
export const operationStatus = async (context: RuntimeContext, operationId: string): Promise<OperationStatus | undefined> => {
  const invocationId = parentOperationOf(operationId) ?? operationId;
  const live = context.running.get(invocationId);
  if (live !== undefined) return operationInInvocation(live.state, operationId);
  const aggregate = invocationAggregate(context.options.store, context.options.episodeId, invocationId);
  await must(aggregate.load(), `reading ${aggregate.stream}`);
  const found = operationInInvocation(aggregate.state, operationId);
  if (found !== undefined || parentOperationOf(operationId) !== undefined) return found;
  // No invocation stream: an outer operation that ran without the claim.
  const [policyAddress, participantAddress] = operationId.split(':');
  if (policyAddress === undefined || participantAddress === undefined) return undefined;
  const read = await context.options.store.readStream(schedulerStream(context.options.episodeId, policyAddress, participantAddress));
  if (read.kind === 'storage_failure') throw new Error(read.reason);
  const events = [];
  for (const recorded of read.events) {
    const event = schedulerEventCodec.fromRecorded(recorded);
    if (typeof event !== 'string') events.push(event);
  }
  return outerOperationOfAttempt(events, operationId, context.options.episodeId);
};
