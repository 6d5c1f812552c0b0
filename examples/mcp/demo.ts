import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/Either';
import { decodeToolMapping, type ToolMapping } from '../../adapters/mcp';
import { HarnessRuntime, RuntimeManager, type RuntimeProgress } from '../../domain/application';
import type { EventStore } from '../../adapters/event-store';
import { loadManifestDocument, type ManifestDocument } from '../../domain/manifest';
import { loadScenario, type CompiledScenario } from '../../domain/scenario';
import { scriptedMcpAgent, type AgentScript, type ScriptedToolCall, type ToolCallSummary } from './agent-harness';
import { connectInMemory, connectStdio, type PortalMcpConnection } from './connect';
import { DEMO_ACCOUNT, startPortalService } from './portal-service';

/**
 * The portal-probe example end to end: a customer portal on 127.0.0.1, the project's MCP server (a
 * child process on stdio by default), a scripted agent whose every tool call goes through the port,
 * and the runtime manager on the given store. Lines written describe identities and outcomes only.
 */

const EXAMPLES = join(__dirname, '..');

export const loadPortalProbeExample = (): { compiled: CompiledScenario; manifest: ManifestDocument; mapping: ToolMapping } => {
  const scenario = loadScenario(readFileSync(join(EXAMPLES, 'portal-probe.scenario.yaml'), 'utf8'));
  if (!scenario.ok) throw new Error(`portal-probe.scenario.yaml: ${scenario.diagnostics.map((d) => d.message).join('; ')}`);
  const manifest = loadManifestDocument(readFileSync(join(EXAMPLES, 'portal-probe.manifest.json'), 'utf8'));
  if (isLeft(manifest)) throw new Error(`portal-probe.manifest.json: ${manifest.left.map((d) => d.message).join('; ')}`);
  const mapping = decodeToolMapping(JSON.parse(readFileSync(join(__dirname, 'portal-tools.mapping.json'), 'utf8')));
  if (isLeft(mapping)) throw new Error(`portal-tools.mapping.json: ${mapping.left}`);
  return { compiled: scenario.compiled, manifest: manifest.right, mapping: mapping.right };
};

const SLOW_PROBE_CALL = 4;

/**
 * Attempt 1 probes with the right account, then asks for a tool nobody mapped; attempt 2 is rejected
 * once and then logs in; attempt 3's probe outlives its timeout, which stops the participant.
 */
export const DEMO_SCRIPT: AgentScript = (snapshot) => {
  const good: ScriptedToolCall = { name: 'probe_login', arguments: { username: DEMO_ACCOUNT.username, password: DEMO_ACCOUNT.password } };
  if (snapshot.attempt === 1) return [good, { name: 'reset_portal', arguments: {} }];
  if (snapshot.attempt === 2) return [{ name: 'probe_login', arguments: { username: DEMO_ACCOUNT.username, password: 'wrong' } }, good];
  return [{ name: good.name, arguments: good.arguments ?? {}, timeoutMs: 500 }];
};

export interface McpDemoOptions {
  readonly store: EventStore;
  readonly transport?: 'stdio' | 'memory';
  /** Ticks of the shared clock to run; the policy is due at 0, 2 and 4. */
  readonly ticks?: number;
  readonly script?: AgentScript;
  readonly episodeId?: string;
  readonly clock?: () => Date;
  readonly write?: (line: string) => void;
}

export interface McpDemoRun {
  readonly calls: readonly ToolCallSummary[];
  readonly progress: readonly RuntimeProgress[];
  /** probe_login calls the MCP server received. */
  readonly probeCalls: number;
  readonly serverStderr: string;
}

const describeProgress = (progress: RuntimeProgress): string => {
  switch (progress.kind) {
    case 'invocation_opened':
      return `tick ${progress.tick}: invocation ${progress.invocation_action_instance_id} opened`;
    case 'invocation_closed':
      return `invocation ${progress.invocation_action_instance_id} closed: ${progress.outcome}`;
    case 'tool_action_admitted':
      return `  admitted ${progress.action_instance_id} (tool call ${progress.tool_call_id})`;
    case 'tool_action_settled':
      return `  settled ${progress.action_instance_id}: ${progress.settlement}`;
    case 'scheduler_stopped':
      return `scheduler of ${progress.participant_address} stopped: ${progress.reason}`;
    case 'storage_failure':
      return `storage failure: ${progress.reason}`;
  }
};

const describeCall = (call: ToolCallSummary): string =>
  `  ${call.tool} [${call.tool_call_id}] -> ${call.outcome}${call.code === undefined ? '' : ` (${call.code})`}`;

export const runMcpDemo = async (options: McpDemoOptions): Promise<McpDemoRun> => {
  const write = options.write ?? (() => undefined);
  const example = loadPortalProbeExample();
  const portal = await startPortalService();
  const slowCall = { call: SLOW_PROBE_CALL, delayMs: 3_000 };
  let connection: PortalMcpConnection | undefined;
  let serverStderr = (): string => '';
  try {
    if (options.transport === 'memory') {
      connection = await connectInMemory({ portalUrl: portal.url, slowCall });
    } else {
      const stdio = await connectStdio({ portalUrl: portal.url, slowCall });
      serverStderr = stdio.stderr;
      connection = stdio;
    }
    const calls: ToolCallSummary[] = [];
    const progress: RuntimeProgress[] = [];
    const runtime = new HarnessRuntime(
      scriptedMcpAgent({
        client: connection.client,
        mapping: example.mapping,
        script: options.script ?? DEMO_SCRIPT,
        onToolCall: (call) => {
          calls.push(call);
          write(describeCall(call));
        },
      }),
    );
    const manager = new RuntimeManager({
      compiled: example.compiled,
      manifest: example.manifest,
      runtime,
      store: options.store,
      episodeId: options.episodeId ?? 'episode-portal-probe-mcp',
      clock: options.clock ?? (() => new Date()),
      onProgress: (event) => {
        progress.push(event);
        write(describeProgress(event));
      },
    });
    await manager.start();
    await manager.advance(options.ticks ?? 5);
    await manager.close();
    const probeCalls = await connection.probeCalls();
    return { calls, progress, probeCalls, serverStderr: serverStderr() };
  } finally {
    await connection?.close();
    await portal.close();
  }
};
