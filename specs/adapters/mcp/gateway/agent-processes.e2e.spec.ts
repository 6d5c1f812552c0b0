import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, MANIFEST, ROOT, SCENARIO, cleanEnv, cli, scratchDir, type Run } from '../../cli/support/cli';
import { liveProcesses, until } from '../../../support/live-processes';

/**
 * The processes `run --harness gateway:` starts end with it: an agent started through a wrapper (a
 * shell running the real agent as its child) is ended whole at its timeout, and a run stopped at once
 * (a second Ctrl-C) ends its agent and its upstream servers, instead of leaving them to init.
 */

jest.setTimeout(120_000);

const SUPPORT = join(__dirname, 'support');

/** Live processes whose arguments hold `marker` as an argument of its own. */
const processesWith = (marker: string): number[] => liveProcesses((args) => args.includes(marker));

/** A gateway configuration whose agent is a shell running an agent that never returns, `marker` among its arguments and the upstream's. */
const configWith = (work: string, marker: string, timeoutMs: number): string => {
  const hangingAgent = `"${process.execPath}" -e "setInterval(() => {}, 1000)" ${marker}`;
  const config = {
    mcpServers: {
      upstream: { command: process.execPath, args: [join(SUPPORT, 'upstream-server.mjs'), marker], env: { UPSTREAM_CALLS_FILE: join(work, 'calls.txt') }, tools: 'tools.mapping.json' },
    },
    agent: { command: 'sh', args: ['-c', `${hangingAgent}; echo the wrapper outlived its agent`], timeout_ms: timeoutMs },
  };
  copyFileSync(join(SUPPORT, 'tools.mapping.json'), join(work, 'tools.mapping.json'));
  const path = join(work, 'gateway.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
};

/** Starts `run`, sends SIGINT twice once its first invocation has started (and its agent with it), and resolves with how it ended. */
const interruptedTwice = (args: readonly string[], marker: string): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no end after two SIGINTs:\n${stderr}`));
    }, 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (sent || !/starts/.test(stderr)) return;
      sent = true;
      void until(() => processesWith(marker).length >= 2).then(() => {
        child.kill('SIGINT');
        setTimeout(() => child.kill('SIGINT'), 300);
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout: '', stderr });
    });
  });

describe('the processes a gateway run starts', () => {
  it('ends an agent started through a wrapper whole when it runs past its timeout', async () => {
    const work = scratchDir('gateway-agent-timeout');
    const marker = `raes-spec-agent-${randomBytes(6).toString('hex')}`;
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `gateway:${configWith(work, marker, 1_500)}`, '--data-dir', join(work, 'data'), '--ticks', '1');
    expect(run.stderr).toMatch(/agent of participant-agent attempt 1: stopped \(ran past 1500 ms\)/);
    expect(run.status).toBe(0);
    expect(await until(() => processesWith(marker).length === 0)).toBe(true);
  });

  it('ends the agent and the upstream servers when a second Ctrl-C stops the run at once', async () => {
    const work = scratchDir('gateway-interrupted');
    const marker = `raes-spec-agent-${randomBytes(6).toString('hex')}`;
    const run = await interruptedTwice(['run', SCENARIO, '-m', MANIFEST, '--harness', `gateway:${configWith(work, marker, 60_000)}`, '--data-dir', join(work, 'data')], marker);
    expect(run.status).toBe(130);
    expect(await until(() => processesWith(marker).length === 0)).toBe(true);
  });
});
