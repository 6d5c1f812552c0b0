// A user's harness module, in plain JavaScript with no import of the engine: createRuntime returns a
// participant runtime that keeps each invocation's port and makes one tool call through it.
import { outerResult, portalToolRequest, succeededToolResult } from './portal-tool-calls.mjs';

export function createRuntime(context) {
  if (typeof context?.cwd !== 'string') throw new Error('expected a context with cwd');
  const ports = new Map();
  return {
    attachInvocationToolActions(port) {
      ports.set(port.invocation_action_instance_id, port);
    },
    async admitAction(request, snapshot) {
      const port = ports.get(request.action_instance_id);
      const answer = await port.admitAndDispatch(portalToolRequest(port, `module-call-${snapshot.attempt}`));
      if (answer.admitted && answer.accepted) {
        await port.complete(answer.action_instance_id, succeededToolResult(port, answer.action_instance_id));
      }
      return outerResult(request, 'succeeded');
    },
  };
}
