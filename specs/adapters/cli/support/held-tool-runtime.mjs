// A harness module whose tool calls stay open until the spec releases them: call n of attempt a runs
// until the file `<RAES_SPEC_RELEASE_DIR>/<a>-<n>` exists. The first call then completes; the second is
// reported unknown (a timeout), so it settles indeterminate and the participant's scheduler stops.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { outerResult, portalToolRequest, succeededToolResult } from '../../harness/support/portal-tool-calls.mjs';

const released = async (attempt, call) => {
  const dir = process.env.RAES_SPEC_RELEASE_DIR;
  if (dir === undefined) throw new Error('set RAES_SPEC_RELEASE_DIR to the folder the spec releases tool calls in');
  const file = join(dir, `${attempt}-${call}`);
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20));
};

const admitted = async (port, attempt, call) => {
  const answer = await port.admitAndDispatch(portalToolRequest(port, `held-call-${attempt}-${call}`));
  if (!answer.admitted) throw new Error(`refused: ${answer.refusal}`);
  return answer.action_instance_id;
};

export const harness = async (request, snapshot, port) => {
  const first = await admitted(port, snapshot.attempt, 1);
  await released(snapshot.attempt, 1);
  await port.complete(first, succeededToolResult(port, first));
  const second = await admitted(port, snapshot.attempt, 2);
  await released(snapshot.attempt, 2);
  await port.reportUnknown(second, 'timeout');
  return outerResult(request, 'succeeded');
};
