import { startCommandHarness } from '../harness/command-harness';
import { loadModuleHarness, ModuleHarnessInvalid } from '../harness/module-harness';
import type { HarnessOptions, StartedHarness } from './harness-types';
import type { HarnessSpec } from './harness-spec';
import { EXIT_USAGE } from './io';
import { invocationLabel, shown, toolTail } from './format';
import type { AdmissionMeta } from '../mcp';

/** A tools/call through the gateway, as the bundled MCP harness describes its calls. */
/** The MCP gateway (and the MCP SDK under it) loads only for a gateway harness, not at every command's start. */
const gatewayModule = (): typeof import('../mcp/gateway') => require('../mcp/gateway') as typeof import('../mcp/gateway');

export const describeGatewayCall = (tool: string, admission: AdmissionMeta): string => {
  const id = admission.action_instance_id === undefined ? 'no action' : toolTail(admission.action_instance_id);
  const outcome =
    admission.outcome === 'refused'
      ? `refused (${admission.refusal ?? 'refused'}), the tool never ran`
      : admission.outcome === 'unknown'
        ? `effects unknown (${shown(admission.reason ?? 'unknown')})`
        : admission.outcome;
  return `      gateway: ${id} MCP tool ${shown(tool)}: ${outcome}`;
};

/** The user's own harnesses for `run`: their agent through the MCP gateway, their module, their command. */

/** A harness that cannot start for a reason the user can fix; `run` prints it and exits with `exit`. */
export class HarnessStartFailed extends Error {
  constructor(
    message: string,
    readonly exit: number,
  ) {
    super(message);
    this.name = 'HarnessStartFailed';
  }
}

export const startPluginHarness = async (
  spec: Exclude<HarnessSpec, { kind: 'scripted' } | { kind: 'mcp' }>,
  options: HarnessOptions,
): Promise<StartedHarness> => {
  switch (spec.kind) {
    case 'gateway': {
      const loaded = spec.config !== undefined ? { ok: true as const, config: spec.config } : gatewayModule().loadGatewayConfig(spec.configPath);
      if (!loaded.ok) throw new HarnessStartFailed(loaded.message, EXIT_USAGE);
      let gateway;
      try {
        gateway = await gatewayModule().startGatewayRuntime({
          config: loaded.config,
          bindings: options.bindings ?? [],
          onToolCall: (_invocationId, tool, admission) => options.onCall(describeGatewayCall(tool, admission)),
          onAgentExit: (invocationId, exit) =>
            options.onCall(`      agent of ${invocationLabel(invocationId)}: ${exit.kind === 'exited' ? `exited ${exit.code}` : `stopped (${shown(exit.reason)})`}`),
        });
      } catch (error) {
        throw new HarnessStartFailed((error as Error).message, 1);
      }
      return { runtime: gateway.runtime, close: () => gateway.close() };
    }
    case 'module': {
      try {
        const loaded = await loadModuleHarness(spec.modulePath);
        return { runtime: loaded.runtime, close: () => loaded.close() };
      } catch (error) {
        if (error instanceof ModuleHarnessInvalid) throw new HarnessStartFailed(error.message, EXIT_USAGE);
        throw new HarnessStartFailed(`the harness module failed to start: ${(error as Error).message}`, 1);
      }
    }
    case 'command': {
      const harness = await startCommandHarness({
        commandLine: spec.commandLine,
        onExit: (invocationId, code) => options.onCall(`      command of ${invocationLabel(invocationId)}: ${code === null ? 'did not exit normally' : `exited ${code}`}`),
      });
      return { runtime: harness.runtime, remotePorts: harness.remotePorts, close: () => harness.close() };
    }
  }
};
