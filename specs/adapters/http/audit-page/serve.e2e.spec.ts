import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { BIN, INVOCATION, MANIFEST, ROOT, SCENARIO, cli, scratchDir } from '../../cli/support/cli';

/** The audit page in a real headless Chromium, beside a run that writes while the page is open. */

jest.setTimeout(120_000);

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const SCREENSHOTS = join(ROOT, 'specs-output');

const start = (args: readonly string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return { child, out: () => out, err: () => err, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
};

const waitFor = async (what: () => boolean, label: string, ms = 60_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error(`never saw ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

if (CHROMIUM === undefined) {
  // eslint-disable-next-line no-console
  console.warn('serve.e2e: no chromium at /usr/bin/chromium (apt-get install chromium); the audit page spec is skipped');
}
const describeWithChromium = CHROMIUM === undefined ? describe.skip : describe;

describe('raes-tools serve usage', () => {
  it('refuses a bad port with exit 2', () => {
    const refused = cli('serve', '--port', '70000', '--data-dir', scratchDir('serve-port'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/expected a port number from 0 to 65535 for --port, got '70000'/);
  });
});

describeWithChromium('raes-tools serve in headless Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a tool action that settles during the run without a reload', async () => {
    const dataDir = scratchDir('serve');
    // A first run leaves invocation 1 (its scheduler stopped); the second, after a resolution, writes while the page is open.
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    expect(cli('resolve', `${INVOCATION(1)}:tool=2`, '--effect', 'absent', '--evidence', 'log#1', '--data-dir', dataDir).status).toBe(0);
    expect(cli('scheduler', 'restart', 'participant.behavior.participant-agent', '--data-dir', dataDir).status).toBe(0);
    // The second run writes while the page is open: each of its calls takes a second.
    const run = start(['run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--tool-delay-ms', '1000']);
    await waitFor(() => /attempt 2 starts/.test(run.err()), 'the second run start');
    const server = start(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\//.test(server.out()), 'the page address');
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(server.out())![0];
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector(`tr[data-action="${INVOCATION(1)}:tool=2"]`);
      expect(await page.locator(`tr[data-action="${INVOCATION(1)}:tool=2"]`).textContent()).toMatch(/resolved: absent/);
      // Invocation 2 is still open at the first render; its tool actions show once it closes, without a reload.
      expect(await page.locator(`[data-invocation="${INVOCATION(2)}"]`).count()).toBe(0);
      await page.waitForSelector(`tr[data-action="${INVOCATION(2)}:tool=1"]`, { timeout: 60_000 });
      expect(await page.locator(`tr[data-action="${INVOCATION(2)}:tool=1"]`).textContent()).toMatch(/completed/);
      await page.waitForSelector(`tr[data-action="${INVOCATION(2)}:tool=2"].indeterminate`);
      await page.waitForSelector('tr.stopped');
      expect(await run.exited).toBe(0);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'audit-page.png'), fullPage: true });
    } finally {
      server.child.kill('SIGINT');
      expect(await server.exited).toBe(0);
    }
  });
});
