import { InvalidArgumentError } from 'commander';
import type { GatewayConfig } from '../mcp/gateway';

/**
 * What `run --harness` names: a bundled harness (`scripted`, `mcp`) or the user's own:
 * `gateway:<config.json>` (their agent command and MCP servers, through the engine's MCP gateway),
 * `module:<file>` (a JS/TS module exporting a participant runtime), `command:<command line>` (an
 * external process per invocation that talks to the remote port).
 */
export type HarnessSpec =
  | { readonly kind: 'scripted' }
  | { readonly kind: 'mcp' }
  /** `config`, when given, is used instead of reading `configPath` (the demo builds its own). */
  | { readonly kind: 'gateway'; readonly configPath: string; readonly config?: GatewayConfig }
  | { readonly kind: 'module'; readonly modulePath: string }
  | { readonly kind: 'command'; readonly commandLine: string };

export const HARNESS_CHOICES = 'scripted, mcp, gateway:<config.json>, module:<file>, command:<command line>';

export const parseHarnessSpec = (value: string): HarnessSpec => {
  if (value === 'scripted' || value === 'mcp') return { kind: value };
  const colon = value.indexOf(':');
  const prefix = colon < 0 ? value : value.slice(0, colon);
  const rest = colon < 0 ? '' : value.slice(colon + 1).trim();
  if (prefix === 'gateway' || prefix === 'module' || prefix === 'command') {
    if (rest === '') throw new InvalidArgumentError(`${prefix}: needs ${prefix === 'command' ? 'a command line' : 'a file'} after the colon, e.g. ${prefix}:${prefix === 'command' ? 'python3 agent.py' : prefix === 'gateway' ? 'gateway.json' : 'harness.js'}.`);
    if (prefix === 'gateway') return { kind: 'gateway', configPath: rest };
    if (prefix === 'module') return { kind: 'module', modulePath: rest };
    return { kind: 'command', commandLine: rest };
  }
  throw new InvalidArgumentError(`Allowed choices are ${HARNESS_CHOICES}.`);
};

/** How a summary names the harness. */
export const harnessLabel = (spec: HarnessSpec): string => {
  switch (spec.kind) {
    case 'gateway':
      return `gateway:${spec.configPath}`;
    case 'module':
      return `module:${spec.modulePath}`;
    case 'command':
      return 'command';
    default:
      return spec.kind;
  }
};
