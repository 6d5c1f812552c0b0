// A harness module whose tool answers late: it reports the call unknown (a timeout), then the tool's
// success arrives and is completed anyway, which the engine refuses as a late settlement.
import { outerResult, portalToolRequest, succeededToolResult } from '../../harness/support/portal-tool-calls.mjs';

export const harness = async (request, snapshot, port) => {
  const answer = await port.admitAndDispatch(portalToolRequest(port, `late-call-${snapshot.attempt}`));
  if (!answer.admitted) throw new Error(`refused: ${answer.refusal}`);
  await port.reportUnknown(answer.action_instance_id, 'timeout');
  await port.complete(answer.action_instance_id, succeededToolResult(port, answer.action_instance_id));
  return outerResult(request, 'failed');
};
