import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch-dir';

/**
 * The installable package: `npm pack` (which builds dist/), installed into an empty project, runs its
 * CLI without tsx and the README's "Embed it" program, compiled there against the package's types.
 */

jest.setTimeout(600_000);

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The README's TypeScript block under "## Embed it". */
const embedExample = (): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embed it'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match === null || match[1] === undefined) throw new Error('README.md has no ```ts block under "## Embed it"');
  return match[1];
};

const run = (cwd: string, command: string, args: readonly string[]) => {
  const env = { ...process.env };
  delete env.RAES_EVENT_STORE;
  delete env.RAES_SQLITE_PATH;
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

describe('the package, packed and installed into an empty project', () => {
  const packDir = scratchDir('pack');
  const project = scratchDir('consumer');
  let tarball: string;

  beforeAll(() => {
    execFileSync('npm', ['pack', '--pack-destination', packDir, '--silent'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [file] = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
    if (file === undefined) throw new Error(`npm pack wrote no tarball into ${packDir}`);
    tarball = join(packDir, file);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const installed = run(project, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball]);
    if (installed.status !== 0) throw new Error(`npm install failed:\n${installed.stderr}`);
  });

  it('ships the built JavaScript, its declarations and the writer and integrity threads, not the TypeScript sources', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(listing).toEqual(expect.arrayContaining([
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/adapters/cli/main.js',
      'package/dist/adapters/event-store/sqlite/writer-thread.js',
      'package/dist/adapters/event-store/sqlite/append-batch.js',
      'package/dist/adapters/cli/integrity-thread.js',
      'package/dist/adapters/cli/integrity-worker.js',
      'package/clients/python/raes_tool_actions_client.py',
    ]));
    expect(listing.filter((entry) => entry.endsWith('.ts') && !entry.endsWith('.d.ts'))).toEqual([]);
    expect(listing.some((entry) => entry.startsWith('package/specs/'))).toBe(false);
  });

  it("runs the audit's integrity thread from the compiled JavaScript, with no TypeScript loader", () => {
    const dist = join(project, 'node_modules', 'raes-tool-actions', 'dist');
    const script = `
      const { openSqliteEventStore } = require(${JSON.stringify(join(dist, 'adapters/event-store/sqlite/sqlite-event-store.js'))});
      const { ChainedEventStore } = require(${JSON.stringify(join(dist, 'adapters/event-store/chained-event-store.js'))});
      const { passIntegrity } = require(${JSON.stringify(join(dist, 'adapters/cli/pass-integrity.js'))});
      (async () => {
        const path = ${JSON.stringify(join(project, 'thread-check.sqlite'))};
        const writer = new ChainedEventStore(openSqliteEventStore({ path }), 2, true);
        for (let index = 0; index < 3; index += 1) await writer.append('stream-' + index, [{ id: 'e' + index, type: 'Happened', data: { index } }], { expectedRevision: 'no_stream' });
        await writer.close();
        const store = openSqliteEventStore({ path, readOnly: true });
        const integrity = await passIntegrity(store, { threadFromEvents: 1 });
        const read = await store.readAll({});
        for (const event of read.events) integrity.see(event);
        const report = await integrity.report();
        await store.close();
        process.stdout.write(JSON.stringify({ checkedBy: integrity.checkedBy, events: report.events, seals: report.seals, findings: report.findings }));
      })();
    `;
    const ran = run(project, process.execPath, ['-e', script]);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({ checkedBy: { kind: 'integrity_thread' }, events: 5, seals: 2, findings: [] });
  });

  it('runs `npx raes-tools --help`', () => {
    const help = run(project, 'npx', ['--no-install', 'raes-tools', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: raes-tools/);
    expect(help.stdout).toMatch(/validate/);
  });

  it('runs `npx raes-tools validate` on the bundled example', () => {
    const examples = join(project, 'node_modules', 'raes-tool-actions', 'dist', 'examples');
    const validate = run(project, 'npx', ['--no-install', 'raes-tools', 'validate', join(examples, 'portal-probe.scenario.yaml'), '-m', join(examples, 'portal-probe.manifest.json')]);
    expect(validate).toMatchObject({ status: 0 });
    expect(validate.stdout).toMatch(/^valid: portal-probe/m);
  });

  it('runs `npx raes-tools demo` (the MCP gateway, its agent and the MCP server, all from dist/)', () => {
    const demo = run(project, 'npx', ['--no-install', 'raes-tools', 'demo', '--data-dir', join(project, 'demo-data')]);
    expect(demo.status).toBe(0);
    expect(demo.stdout).toMatch(/^3 invocations, 4 tool actions: 3 completed, 0 withheld, 1 indeterminate$/m);
    expect(demo.stdout).toMatch(/^Verification: sound, no findings/m);
  });

  it('runs a TypeScript harness module with the installed CLI, no tsx setup of its own', () => {
    const typed = readFileSync(join(ROOT, 'specs', 'adapters', 'harness', 'support', 'typed-runtime.ts'), 'utf8').replace(/'(\.\.\/)+index'/, "'raes-tool-actions'");
    writeFileSync(join(project, 'typed-runtime.ts'), typed);
    const examples = join(project, 'node_modules', 'raes-tool-actions', 'dist', 'examples');
    const ran = run(project, 'npx', ['--no-install', 'raes-tools', 'run', join(examples, 'portal-probe.scenario.yaml'), '-m', join(examples, 'portal-probe.manifest.json'), '--harness', 'module:typed-runtime.ts', '--store', 'memory', '--ticks', '1', '--json']);
    expect(ran.status).toBe(0);
    const summary = JSON.parse(ran.stdout) as { invocations: { tool_actions: { settlement: string }[] }[] };
    expect(summary.invocations.map((i) => i.tool_actions.map((a) => a.settlement))).toEqual([['withheld']]);
  });

  it("compiles the README's embed example against the package's types and runs it", () => {
    writeFileSync(join(project, 'embed.ts'), embedExample());
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
          outDir: 'out',
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['embed.ts'],
      }),
    );
    const compiled = run(project, process.execPath, [TSC, '-p', 'tsconfig.json']);
    expect({ status: compiled.status, output: compiled.stdout }).toEqual({ status: 0, output: '' });
    const ran = run(project, process.execPath, [join(project, 'out', 'embed.js')]);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trim()).toBe('3 invocations, 3 tool actions, sound: true');
    expect(readdirSync(join(project, 'esdata'))).toEqual(expect.arrayContaining(['events.sqlite', 'views.sqlite', 'jobs']));
    expect(readdirSync(join(project, 'esdata', 'jobs'))).toHaveLength(1);
  });
});
