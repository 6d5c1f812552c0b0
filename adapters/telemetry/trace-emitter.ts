import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Counter, type Histogram } from '@opentelemetry/api';
import type { RecordedEvent } from '../../domain/ports/event-store';
import { asInvocationEvent } from '../../domain/stored-events';
import type { InvocationClosed, InvocationOpened, ToolActionAdmitted, ToolActionSettled } from '../../domain/invocation/events';
import type { TelemetryPipeline } from './pipeline';

/**
 * Turns the stored invocation events into GenAI spans: an `invoke_agent` span per invocation with an
 * `execute_tool` child per tool action, each with the real times of its events. An invocation is emitted
 * when it closes (a span is exported once, ended). Only identities, times, settlements and statuses
 * become attributes: the events hold no tool arguments, and of an action result only `status` is read.
 */

interface ToolActionRecord {
  readonly admitted: ToolActionAdmitted;
  dispatchedAt?: string;
  settled?: ToolActionSettled;
}

interface OpenInvocationRecord {
  readonly opened: InvocationOpened;
  activatedAt?: string;
  readonly actions: Map<string, ToolActionRecord>;
}

export interface TraceEmitter {
  /** Feeds one stored event, in log order. */
  handle(event: RecordedEvent): void;
}

const settlementAttributes = (settled: ToolActionSettled): Attributes =>
  settled.settlement === 'completed'
    ? { 'raes.settlement': 'completed', 'raes.status': settled.action_result.status }
    : { 'raes.settlement': settled.settlement, 'raes.reason': settled.reason };

export const createTraceEmitter = (pipeline: Pick<TelemetryPipeline, 'tracer' | 'meter'>): TraceEmitter => {
  const open = new Map<string, OpenInvocationRecord>();
  const actionsBySettlement: Counter = pipeline.meter.createCounter('raes.tool_actions', { description: 'Tool actions by settlement', unit: '{action}' });
  const duration: Histogram = pipeline.meter.createHistogram('gen_ai.execute_tool.duration', { description: 'Tool action duration, admitted to settled', unit: 's' });

  const emitToolAction = (parentContext: typeof ROOT_CONTEXT, action: ToolActionRecord, endFallback: string): void => {
    const { admitted } = action;
    const toolName = admitted.request.tool_affordance_address;
    const span = pipeline.tracer.startSpan(
      `execute_tool ${toolName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: new Date(admitted.at),
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': toolName,
          'gen_ai.tool.call.id': admitted.tool_call_id,
          'raes.action_instance_id': admitted.action_instance_id,
          'raes.admission_ordinal': admitted.admission_ordinal,
          'raes.action_contract_address': admitted.request.action_contract_address,
        },
      },
      parentContext,
    );
    span.addEvent('raes.tool_action.admitted', {}, new Date(admitted.at));
    if (action.dispatchedAt !== undefined) span.addEvent('raes.tool_action.dispatched', {}, new Date(action.dispatchedAt));
    const settled = action.settled;
    if (settled === undefined) {
      span.setAttribute('raes.settlement', 'unsettled');
      span.end(new Date(endFallback));
      return;
    }
    span.addEvent('raes.tool_action.settled', { 'raes.settlement': settled.settlement }, new Date(settled.at));
    span.setAttributes(settlementAttributes(settled));
    if (settled.settlement !== 'completed' || settled.action_result.status !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(new Date(settled.at));
    const metricAttributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': toolName, 'raes.settlement': settled.settlement };
    actionsBySettlement.add(1, metricAttributes);
    duration.record(Math.max(0, (Date.parse(settled.at) - Date.parse(admitted.at)) / 1000), metricAttributes);
  };

  const emitInvocation = (record: OpenInvocationRecord, closed: InvocationClosed): void => {
    const values = record.opened.port_values;
    const span = pipeline.tracer.startSpan(`invoke_agent ${values.participant_address}`, {
      kind: SpanKind.INTERNAL,
      startTime: new Date(record.opened.at),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.id': values.participant_address,
        'raes.invocation_action_instance_id': record.opened.invocation_action_instance_id,
        'raes.episode_id': values.episode_id,
        'raes.participant_implementation_ref': values.participant_implementation_ref,
        'raes.execution_generation': values.execution_generation,
        'raes.outcome': closed.outcome,
        'raes.recovered': closed.recovered,
        ...(closed.outcome === 'returned' ? { 'raes.status': closed.action_result.status } : {}),
      },
    });
    if (record.activatedAt !== undefined) span.addEvent('raes.invocation.activated', {}, new Date(record.activatedAt));
    const context = trace.setSpan(ROOT_CONTEXT, span);
    for (const action of record.actions.values()) emitToolAction(context, action, closed.at);
    if (closed.outcome !== 'returned') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(new Date(closed.at));
  };

  return {
    handle: (stored) => {
      const event = asInvocationEvent(stored);
      if (event === undefined) return;
      const id = event.invocation_action_instance_id;
      switch (event.type) {
        case 'InvocationOpened':
          open.set(id, { opened: event, actions: new Map() });
          return;
        case 'InvocationActivated': {
          const record = open.get(id);
          if (record !== undefined) record.activatedAt = event.at;
          return;
        }
        case 'ToolActionAdmitted':
          open.get(id)?.actions.set(event.action_instance_id, { admitted: event });
          return;
        case 'ToolActionDispatched': {
          const action = open.get(id)?.actions.get(event.action_instance_id);
          if (action !== undefined) action.dispatchedAt = event.at;
          return;
        }
        case 'ToolActionSettled': {
          const action = open.get(id)?.actions.get(event.action_instance_id);
          if (action !== undefined) action.settled = event;
          return;
        }
        case 'InvocationClosed': {
          const record = open.get(id);
          open.delete(id);
          if (record !== undefined) emitInvocation(record, event);
          return;
        }
        case 'ToolActionResolved':
          return;
      }
    },
  };
};
