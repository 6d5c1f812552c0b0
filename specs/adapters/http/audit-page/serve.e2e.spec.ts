import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { INVOCATION, MANIFEST, ROOT, SCENARIO, cli, scratchDir } from '../../cli/support/cli';
import { HELD_TOOL_HARNESS, heldTools, startCli, waitFor, type StartedCli } from '../../cli/support/started-cli';

/** The audit page in a real headless Chromium, beside a run that writes while the page is open. */

jest.setTimeout(120_000);

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const SCREENSHOTS = join(ROOT, 'specs-output');

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

  it('stops with exit 1, saying so, when the store file it shows is removed', async () => {
    const dataDir = scratchDir('serve-removed');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    const server = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      await waitFor(() => /audit page on http/.test(server.out()), 'the page to listen');
      rmSync(dataDir, { recursive: true, force: true });
      expect(await server.exited).toBe(1);
      expect(server.err()).toContain(`the event store file ${join(dataDir, 'events.sqlite')} was removed while the page showed it`);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describeWithChromium('raes-tools serve in headless Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a tool action while it is open, then as it settles, without a reload', async () => {
    const dataDir = scratchDir('serve');
    // A first run leaves invocation 1 (its scheduler stopped); the second, after a resolution, writes while the page is open.
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    expect(cli('resolve', `${INVOCATION(1)}:tool=2`, '--effect', 'absent', '--evidence', 'log#1', '--data-dir', dataDir).status).toBe(0);
    expect(cli('scheduler', 'restart', 'participant.behavior.participant-agent', '--data-dir', dataDir).status).toBe(0);
    const server = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
    const started: StartedCli[] = [server];
    try {
      await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\//.test(server.out()), 'the page address');
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(server.out())![0];
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector(`tr[data-action="${INVOCATION(1)}:tool=2"]`);
      expect(await page.locator(`tr[data-action="${INVOCATION(1)}:tool=2"]`).textContent()).toMatch(/resolved: absent/);
      expect(await page.locator(`[data-invocation="${INVOCATION(2)}"]`).count()).toBe(0);
      // A mark a reload would wipe out.
      await page.evaluate('window.loadedOnce = true');
      // A second connection records what each patch holds: only what changed, not the whole audit.
      await page.evaluate(`window.patched = []; window.snapshotted = false;
        const events = new EventSource('/events');
        events.addEventListener('snapshot', () => { window.snapshotted = true; });
        events.addEventListener('patch', (e) => window.patched.push(...JSON.parse(e.data).invocations.map((i) => i.invocation_action_instance_id)));`);
      await page.waitForFunction('window.snapshotted === true');

      // The second run's tool calls stay open until the spec releases them.
      const held = heldTools();
      const run = startCli(['run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--harness', HELD_TOOL_HARNESS], held.env);
      started.push(run);
      const action = (call: number): string => `tr[data-action="${INVOCATION(2)}:tool=${call}"]`;
      // Dispatched and not settled: the run holds it open, so the page can only have it from a patch of an open invocation.
      await page.waitForSelector(`${action(1)}.open[data-phase="dispatched"]`, { timeout: 60_000 });
      expect(await page.locator(action(1)).textContent()).toMatch(/open \(dispatched\)/);
      expect(await page.locator(`[data-invocation="${INVOCATION(2)}"].open`).count()).toBe(1);
      expect(run.child.exitCode).toBeNull();

      held.release(2, 1);
      await page.waitForSelector(`${action(1)}[data-phase="settled"]`);
      expect(await page.locator(action(1)).textContent()).toMatch(/completed/);
      await page.waitForSelector(`${action(2)}.open[data-phase="dispatched"]`);
      held.release(2, 2);
      await page.waitForSelector(`${action(2)}.indeterminate[data-phase="settled"]`);
      await page.waitForSelector(`[data-invocation="${INVOCATION(2)}"]:not(.open)`);
      await page.waitForSelector('tr.stopped');
      expect(await run.exited).toBe(0);
      expect(await page.evaluate('window.loadedOnce')).toBe(true);
      const patched = (await page.evaluate('window.patched')) as string[];
      expect(patched.length).toBeGreaterThan(1);
      expect(new Set(patched)).toEqual(new Set([INVOCATION(2)]));
      // Each invocation shows once, its actions once each.
      expect(await page.locator(`[data-invocation="${INVOCATION(2)}"]`).count()).toBe(1);
      expect(await page.locator(action(1)).count()).toBe(1);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'audit-page.png'), fullPage: true });
    } finally {
      server.child.kill('SIGINT');
      expect(await server.exited).toBe(0);
      for (const child of started.slice(1)) child.child.kill('SIGKILL');
    }
  });
});
