import { spawn } from 'node:child_process';
import { HarnessRuntime, type ParticipantRuntime } from '../../domain/application/participant-runtime';
import type { AttachedPort } from '../../domain/application/runtime-manager';
import { RemotePortServer } from '../http/remote-port-server';
import { atProcessEnd } from '../processes/process-exit';
import { endProcessTree } from '../processes/process-tree';
import { outerResultOf } from './outer-result';

/**
 * `run --harness command:<command line>`: for each invocation, an external process, in any language,
 * that reaches its invocation's port over the remote port (HTTP on 127.0.0.1, one secret per
 * invocation). It is run through the shell with these environment variables:
 *   RAES_PORT_URL        the remote port's base URL
 *   RAES_INVOCATION_ID   the invocation action instance id (its path segment on the port)
 *   RAES_PORT_SECRET     the invocation's secret (Authorization: Bearer <secret>)
 *   RAES_PARTICIPANT, RAES_ATTEMPT, RAES_TICK
 * Exit 0 means the invocation succeeded, anything else that it failed. Its output is drained and
 * dropped: it may hold tool content, which the engine never keeps.
 */

export const PORT_URL_ENV = 'RAES_PORT_URL';
export const INVOCATION_ID_ENV = 'RAES_INVOCATION_ID';
export const PORT_SECRET_ENV = 'RAES_PORT_SECRET';

export interface CommandHarness {
  readonly runtime: ParticipantRuntime;
  /** Hand to the runtime manager: each attached port is granted a secret on it. */
  readonly remotePorts: RemotePortServer;
  close(): Promise<void>;
}

export interface CommandHarnessOptions {
  readonly commandLine: string;
  readonly cwd?: string;
  /** How long one invocation's process may run before it is killed (the invocation then fails). */
  readonly timeoutMs?: number;
  readonly onExit?: (invocationId: string, code: number | null) => void;
}

export const startCommandHarness = async (options: CommandHarnessOptions): Promise<CommandHarness> => {
  const remotePorts = new RemotePortServer();
  await remotePorts.start();
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const runtime = new HarnessRuntime(async (request, snapshot, port) => {
    const remote = (port as AttachedPort | undefined)?.remote;
    if (remote === undefined) {
      throw new Error(`${request.participant_address} has no tool-actions claim: the command harness needs the invocation's port`);
    }
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(options.commandLine, {
        shell: true,
        cwd: options.cwd ?? process.cwd(),
        env: {
          ...process.env,
          [PORT_URL_ENV]: remote.url,
          [INVOCATION_ID_ENV]: remote.invocation_action_instance_id,
          [PORT_SECRET_ENV]: remote.secret,
          RAES_PARTICIPANT: request.participant_address,
          RAES_ATTEMPT: String(snapshot.attempt),
          RAES_TICK: String(snapshot.tick),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.resume();
      child.stderr.resume();
      // Run through the shell: the command's own processes are the shell's children, ended with it.
      const pid = child.pid;
      const forget = pid === undefined ? () => undefined : atProcessEnd(() => endProcessTree(pid));
      const timer = setTimeout(() => {
        if (pid !== undefined) endProcessTree(pid);
      }, timeoutMs);
      child.once('error', () => {
        clearTimeout(timer);
        forget();
        resolve(null);
      });
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        forget();
        resolve(exitCode);
      });
    });
    options.onExit?.(request.action_instance_id, code);
    return outerResultOf(request, code === 0);
  });
  return { runtime, remotePorts, close: () => remotePorts.close() };
};
