import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, cleanEnv, scratchDir } from './cli';

/** A CLI process the spec talks to while it runs. */
export interface StartedCli {
  readonly child: ChildProcess;
  out(): string;
  err(): string;
  readonly exited: Promise<number | null>;
}

export const startCli = (args: readonly string[], env: NodeJS.ProcessEnv = {}): StartedCli => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...cleanEnv(), ...env } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return { child, out: () => out, err: () => err, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
};

export const waitFor = async (what: () => boolean, label: string, ms = 60_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error(`never saw ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * `run --harness <HELD_TOOL_HARNESS>` with `RAES_SPEC_RELEASE_DIR` set: each tool call stays open until
 * `release(attempt, call)` (see held-tool-runtime.mjs).
 */
export const HELD_TOOL_HARNESS = `module:${join(__dirname, 'held-tool-runtime.mjs')}`;

export const heldTools = (): { readonly env: NodeJS.ProcessEnv; release(attempt: number, call: number): void } => {
  const dir = scratchDir('held-tools');
  return { env: { RAES_SPEC_RELEASE_DIR: dir }, release: (attempt, call) => writeFileSync(join(dir, `${attempt}-${call}`), '') };
};
