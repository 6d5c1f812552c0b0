import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

export { scratchDir } from '../../../support/scratch-dir';

export const ROOT = join(__dirname, '../../../..');
export const BIN = join(ROOT, 'adapters/cli/bin.cjs');
export const SCENARIO = join(ROOT, 'examples/portal-probe.scenario.yaml');
export const MANIFEST = join(ROOT, 'examples/portal-probe.manifest.json');
export const PARTICIPANT = 'participant.behavior.participant-agent';
export const INVOCATION = (attempt: number): string =>
  `participant.autonomous-execution.participant-behavior:${PARTICIPANT}:${attempt}`;

export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment without store settings, so a developer's shell cannot steer the specs. */
export const cleanEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.RAES_EVENT_STORE;
  delete env.RAES_SQLITE_PATH;
  delete env.ESDB_CONNECTION_STRING;
  delete env.RAES_POSTGRES_URL;
  delete env.RAES_POSTGRES_POOL_SIZE;
  return env;
};

/** Runs the real CLI through its bin launcher, as a user would, with `env` added to a clean environment. */
export const cliWithEnv = (env: NodeJS.ProcessEnv, ...args: string[]): Run => {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 90_000, env: { ...cleanEnv(), ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

export const cli = (...args: string[]): Run => cliWithEnv({}, ...args);

/**
 * Runs the real CLI without blocking this process (a receiver or live follower the spec runs must keep
 * answering meanwhile), with `env` added to an environment holding no RAES_, OTEL_ or EventStoreDB setting.
 */
export const cliInBackground = (env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> =>
  new Promise((resolve, reject) => {
    const clean = { ...process.env };
    for (const name of Object.keys(clean)) if (name.startsWith('RAES_') || name.startsWith('OTEL_') || name === 'ESDB_CONNECTION_STRING') delete clean[name];
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI did not end:\n${stderr}`));
    }, 90_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout, stderr });
    });
  });

export const json = <T = Record<string, unknown>>(run: Run): T => {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`expected JSON on stdout, got:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
};

/**
 * Starts the CLI and kills it with SIGKILL once `pattern` has shown on stderr and `afterMs` more have
 * passed (calling `whileRunning` just before the kill); resolves with what it wrote.
 */
export const killWhen = (
  args: readonly string[],
  pattern: RegExp,
  afterMs: number,
  whileRunning: () => void = () => undefined,
): Promise<{ stderr: string; signal: NodeJS.Signals | null }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let armed = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`never saw ${pattern} on stderr:\n${stderr}`));
    }, 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (!armed && pattern.test(stderr)) {
        armed = true;
        setTimeout(() => {
          try {
            whileRunning();
          } finally {
            child.kill('SIGKILL');
          }
        }, afterMs);
      }
    });
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ stderr, signal });
    });
  });

/** No stack trace reached the user. */
export const withoutStack = (run: Run): boolean => !/\n\s+at /.test(`${run.stdout}${run.stderr}`);

/** Starts the CLI, sends `signal` once `pattern` has shown on stderr, and resolves with how it ended. */
export const signalWhen = (args: readonly string[], pattern: RegExp, signal: NodeJS.Signals): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no end after ${signal}:\n${stderr}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (!sent && pattern.test(stderr)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout, stderr });
    });
  });
