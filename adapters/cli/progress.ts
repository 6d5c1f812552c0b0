import type { RuntimeProgress } from '../../domain/application';
import { parentOperationOf } from '../../domain/application/operations';
import { invocationLabel, invocationOfAction, lastSegment, shortToolCall, shown, toolTail } from './format';

/** One progress line per engine step, for people watching a run; identities and outcomes only. */
export const describeProgress = (progress: RuntimeProgress): string => {
  switch (progress.kind) {
    case 'invocation_opened':
      return `tick ${progress.tick}: ${invocationLabel(progress.invocation_action_instance_id)} starts (invocation ${progress.invocation_action_instance_id})`;
    case 'tool_action_admitted':
      return `    ${toolTail(progress.action_instance_id)} admitted (tool call ${shown(shortToolCall(progress.tool_call_id, invocationOfAction(progress.action_instance_id)))})`;
    case 'tool_action_settled': {
      const invocation = parentOperationOf(progress.action_instance_id);
      const where = invocation === undefined ? '' : ` in ${invocationLabel(invocation)}`;
      return `    ${toolTail(progress.action_instance_id)}${where} settled: ${progress.settlement}`;
    }
    case 'invocation_closed': {
      const how = progress.recovered ? 'closed by recovery' : 'closed';
      const unresolved =
        progress.indeterminate_action_ids.length === 0 ? '' : `, indeterminate: ${progress.indeterminate_action_ids.map(toolTail).join(', ')}`;
      return `  ${invocationLabel(progress.invocation_action_instance_id)} ${how}: attempt ${progress.outcome}${unresolved}`;
    }
    case 'scheduler_stopped':
      return `  scheduler of ${lastSegment(progress.participant_address)} stopped (${shown(progress.reason)}): no further invocation runs until an operator resolves it`;
    case 'storage_failure':
      return `  storage failure: ${shown(progress.reason)}`;
  }
};
