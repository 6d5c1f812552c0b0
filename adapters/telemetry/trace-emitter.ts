import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Counter, type Histogram, type Span, type SpanContext } from '@opentelemetry/api';
import type { RecordedEvent } from '../../domain/ports/event-store';
import type { ToolCallRefused } from '../../domain/application/port-refusals';
import { RecentMap } from '../../domain/recent-map';
import { asInvocationEvent } from '../../domain/stored-events';
import { invocationStream, parseInvocationStream } from '../../domain/streams';
import type { InvocationClosed, InvocationOpened, ToolActionAdmitted, ToolActionResolved, ToolActionSettled } from '../../domain/invocation/events';
import { refusalEventAttributes, refusalMetricAttributes, settlementAttributes } from './attributes';
import type { TelemetryPipeline } from './pipeline';

/**
 * Turns the stored invocation events into GenAI spans: an `invoke_agent` span per invocation with an
 * `execute_tool` child per tool action, each with the real times of its events. An invocation is emitted
 * when it closes (a span is exported once, ended). Only identities, times, settlements and statuses
 * become attributes: the events hold no tool arguments, and of an action result only `status` is read.
 *
 * Refused port calls (which the log does not hold) are fed in beside the events. What comes after an
 * invocation's spans were sent (a refused late settlement, an operator's resolution of an indeterminate
 * action) becomes a span of its own in the invocation's trace.
 */

interface ToolActionRecord {
  readonly admitted: ToolActionAdmitted;
  dispatchedAt?: string;
  settled?: ToolActionSettled;
  resolved?: ToolActionResolved;
  readonly refusals: ToolCallRefused[];
}

interface OpenInvocationRecord {
  readonly opened: InvocationOpened;
  activatedAt?: string;
  readonly actions: Map<string, ToolActionRecord>;
  /** Refusals of calls that named no admitted action of it. */
  readonly refusals: ToolCallRefused[];
  /** Read, its spans not yet sent. */
  closed?: InvocationClosed;
}

/** An indeterminate action whose spans were sent: what its resolution's span needs. */
interface SentIndeterminate {
  readonly invocation: Context;
  readonly toolName: string;
  readonly span: SpanContext;
}

export interface TraceEmitter {
  /** Feeds one stored event, in log order. A closed invocation is held until `sendClosed`. */
  handle(event: RecordedEvent): void;
  /** Feeds a refused port call, after the log events that came before it. */
  refused(refusal: ToolCallRefused): void;
  /** Sends the spans of every invocation closed since the last call. */
  sendClosed(): void;
  /** How many invocations' spans were sent. */
  readonly sent: number;
}

/** Which invocations to send (default all): an export narrowed to an episode or a participant. */
export type InvocationFilter = (opened: InvocationOpened) => boolean;

/** How many sent invocations a late refusal can still find the trace of, at least. */
const RECENT_SENT = 1024;

const REFUSED_EVENT = 'raes.tool_call.refused';
const RESOLVED_EVENT = 'raes.tool_action.resolved';

/** Invocation and tool action ids repeat across episodes: what the emitter keeps is keyed by episode too. */
const actionKey = (episodeId: string, actionInstanceId: string): string => JSON.stringify([episodeId, actionInstanceId]);

export const createTraceEmitter = (pipeline: Pick<TelemetryPipeline, 'tracer' | 'meter'>, includes?: InvocationFilter): TraceEmitter => {
  // By the invocation's stream (its episode and id).
  const open = new Map<string, OpenInvocationRecord>();
  // Only with a filter: the invocations it left out, so their later events are left out too.
  const excluded = new Set<string>();
  let sent = 0;
  let closedIds: string[] = [];
  const recentSent = new RecentMap<string, Context>(2 * RECENT_SENT);
  // Kept until resolved: an indeterminate action stops its participant, so there are few.
  const unresolved = new Map<string, SentIndeterminate>();
  const actionsBySettlement: Counter = pipeline.meter.createCounter('raes.tool_actions', { description: 'Tool actions by settlement', unit: '{action}' });
  const duration: Histogram = pipeline.meter.createHistogram('gen_ai.execute_tool.duration', { description: 'Tool action duration, admitted to settled', unit: 's' });
  const refusalsByCode: Counter = pipeline.meter.createCounter('raes.tool_call.refusals', { description: 'Refused port calls by code', unit: '{call}' });
  const resolutions: Counter = pipeline.meter.createCounter('raes.tool_action.resolutions', { description: "Operators' resolutions of indeterminate tool actions by effect", unit: '{action}' });

  const addRefusalEvents = (span: Span, refusals: readonly ToolCallRefused[]): void => {
    for (const refusal of refusals) span.addEvent(REFUSED_EVENT, refusalEventAttributes(refusal), new Date(refusal.at));
  };

  const emitToolAction = (parentContext: Context, action: ToolActionRecord, endFallback: string): void => {
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
      addRefusalEvents(span, action.refusals);
      span.setAttribute('raes.settlement', 'unsettled');
      span.end(new Date(endFallback));
      return;
    }
    span.addEvent('raes.tool_action.settled', { 'raes.settlement': settled.settlement }, new Date(settled.at));
    addRefusalEvents(span, action.refusals);
    span.setAttributes(settlementAttributes(settled));
    if (action.resolved !== undefined) span.addEvent(RESOLVED_EVENT, { 'raes.effect': action.resolved.effect }, new Date(action.resolved.at));
    else if (settled.settlement === 'indeterminate') unresolved.set(actionKey(admitted.request.episode_id, admitted.action_instance_id), { invocation: parentContext, toolName, span: span.spanContext() });
    if (settled.settlement !== 'completed' || settled.action_result.status !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(new Date(settled.at));
    const metricAttributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': toolName, 'raes.settlement': settled.settlement };
    actionsBySettlement.add(1, metricAttributes);
    duration.record(Math.max(0, (Date.parse(settled.at) - Date.parse(admitted.at)) / 1000), metricAttributes);
  };

  const remember = (invocationId: string, context: Context): void => {
    recentSent.set(invocationId, context);
  };

  const emitInvocation = (record: OpenInvocationRecord, closed: InvocationClosed): void => {
    const values = record.opened.port_values;
    const key = invocationStream(values.episode_id, record.opened.invocation_action_instance_id);
    open.delete(key);
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
    addRefusalEvents(span, record.refusals);
    const context = trace.setSpan(ROOT_CONTEXT, span);
    for (const action of record.actions.values()) emitToolAction(context, action, closed.at);
    if (closed.outcome !== 'returned') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(new Date(closed.at));
    remember(key, context);
    sent += 1;
  };

  /** A zero-length span in the invocation's trace (a root span when its trace is no longer known). */
  const emitAfterSent = (name: string, parent: Context | undefined, at: string, build: (span: Span) => void): void => {
    const span = pipeline.tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: new Date(at) }, parent ?? ROOT_CONTEXT);
    build(span);
    span.end(new Date(at));
  };

  const resolve = (event: ToolActionResolved, key: string, episodeId: string): void => {
    const action = open.get(key)?.actions.get(event.action_instance_id);
    const sent = unresolved.get(actionKey(episodeId, event.action_instance_id));
    const toolName = action?.admitted.request.tool_affordance_address ?? sent?.toolName;
    resolutions.add(1, toolName === undefined ? { 'raes.effect': event.effect } : { 'raes.effect': event.effect, 'gen_ai.tool.name': toolName });
    if (action !== undefined) {
      action.resolved = event;
      return;
    }
    unresolved.delete(actionKey(episodeId, event.action_instance_id));
    emitAfterSent(`resolve_tool ${toolName ?? event.action_instance_id}`, sent?.invocation ?? recentSent.get(key), event.at, (span) => {
      span.setAttributes({
        'raes.invocation_action_instance_id': event.invocation_action_instance_id,
        'raes.action_instance_id': event.action_instance_id,
        'raes.effect': event.effect,
        ...(toolName === undefined ? {} : { 'gen_ai.tool.name': toolName }),
      });
      if (sent !== undefined) span.addLink({ context: sent.span });
      span.addEvent(RESOLVED_EVENT, { 'raes.effect': event.effect }, new Date(event.at));
    });
  };

  return {
    handle: (stored) => {
      const event = asInvocationEvent(stored);
      const name = parseInvocationStream(stored.stream);
      if (event === undefined || name === undefined) return;
      const id = stored.stream;
      switch (event.type) {
        case 'InvocationOpened':
          if (includes !== undefined && !includes(event)) excluded.add(id);
          else open.set(id, { opened: event, actions: new Map(), refusals: [] });
          return;
        case 'InvocationActivated': {
          const record = open.get(id);
          if (record !== undefined) record.activatedAt = event.at;
          return;
        }
        case 'ToolActionAdmitted':
          open.get(id)?.actions.set(event.action_instance_id, { admitted: event, refusals: [] });
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
          if (record === undefined || record.closed !== undefined) return;
          record.closed = event;
          closedIds.push(id);
          return;
        }
        case 'ToolActionResolved':
          if (!excluded.has(id)) resolve(event, id, name.episodeId);
          return;
      }
    },
    get sent() {
      return sent;
    },
    sendClosed: () => {
      const ids = closedIds;
      closedIds = [];
      for (const id of ids) {
        const record = open.get(id);
        if (record?.closed !== undefined) emitInvocation(record, record.closed);
      }
    },
    refused: (refusal) => {
      const key = invocationStream(refusal.episode_id, refusal.invocation_action_instance_id);
      if (excluded.has(key)) return;
      refusalsByCode.add(1, refusalMetricAttributes(refusal));
      const record = open.get(key);
      if (record !== undefined) {
        const action = refusal.action_instance_id === undefined ? undefined : record.actions.get(refusal.action_instance_id);
        (action ?? record).refusals.push(refusal);
        return;
      }
      emitAfterSent(`refused ${refusal.port_call}`, recentSent.get(key), refusal.at, (span) => {
        span.setAttributes({ 'raes.invocation_action_instance_id': refusal.invocation_action_instance_id, ...refusalEventAttributes(refusal) });
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.addEvent(REFUSED_EVENT, refusalEventAttributes(refusal), new Date(refusal.at));
      });
    },
  };
};
