/**
 * An embedded engine on a SQLite data directory whose views follow the log: advances its clock until
 * one invocation has returned, prints `R <invocation id>`, then idles until it is killed.
 * Usage: live-views-engine-child.ts <data dir>
 */
import { join } from 'node:path';
import { createEngine } from '../../../../adapters/engine/create-engine';
import { HarnessRuntime } from '../../../../domain/application';
import type { ToolCallOutcome } from '../../../../examples/harness/call-tool';
import { probeResult } from '../../../../examples/harness/scripted-harness';

const [dataDir] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: live-views-engine-child.ts <data dir>');

const ROOT = join(__dirname, '../../../..');
const succeeded = [{ kind: 'completed', succeeded: true } as ToolCallOutcome];

const main = async (): Promise<void> => {
  const returned: string[] = [];
  const engine = await createEngine({
    scenarioPath: join(ROOT, 'examples/portal-probe.scenario.yaml'),
    manifestPath: join(ROOT, 'examples/portal-probe.manifest.json'),
    dataDir,
    episodeId: 'episode-live',
    runtime: new HarnessRuntime(async (request) => {
      returned.push(request.action_instance_id);
      return probeResult(request, succeeded);
    }),
  });
  for (let tick = 0; returned.length === 0 && tick < 50; tick++) await engine.advance(1);
  process.stdout.write(`R ${returned[0]}\n`);
  setInterval(() => undefined, 60_000);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
