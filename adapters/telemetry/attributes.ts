import type { Attributes } from '@opentelemetry/api';
import type { ToolCallRefused } from '../../domain/application/port-refusals';
import type { ToolActionSettled } from '../../domain/invocation/events';

/**
 * The attributes telemetry sends: identities, codes, settlements and statuses only. Nothing here reads
 * a tool's arguments, a result beyond its status, or a refusal's message.
 */

export const settlementAttributes = (settled: ToolActionSettled): Attributes =>
  settled.settlement === 'completed'
    ? { 'raes.settlement': 'completed', 'raes.status': settled.action_result.status }
    : { 'raes.settlement': settled.settlement, 'raes.reason': settled.reason };

/** Few values each, so a metric keeps a bounded number of series. */
export const refusalMetricAttributes = (refused: ToolCallRefused): Attributes => {
  const attributes: Attributes = { 'raes.refusal.code': refused.refusal, 'raes.port_call': refused.port_call };
  if (refused.tool_affordance_address !== undefined) attributes['gen_ai.tool.name'] = refused.tool_affordance_address;
  if (refused.late_settlement !== undefined) attributes['raes.late_settlement'] = true;
  return attributes;
};

/** The metric's attributes and the identities of the call, for a span event. */
export const refusalEventAttributes = (refused: ToolCallRefused): Attributes => {
  const attributes = refusalMetricAttributes(refused);
  if (refused.tool_call_id !== undefined) attributes['gen_ai.tool.call.id'] = refused.tool_call_id;
  if (refused.action_instance_id !== undefined) attributes['raes.action_instance_id'] = refused.action_instance_id;
  const settledAs = refused.late_settlement?.action_settlement;
  if (settledAs !== undefined) attributes['raes.action_settlement'] = settledAs;
  return attributes;
};
