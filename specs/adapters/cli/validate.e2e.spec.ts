import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ENTERPRISE_SCENARIO, PORTAL_PROBE_MANIFEST, PORTAL_PROBE_SCENARIO, Yaml, portalProbeManifest, portalProbeWith } from '../../domain/scenario/scenario-fixtures';
import { scratchDir } from '../../support/scratch-dir';

const ROOT = join(__dirname, '../../..');
const BIN = join(ROOT, 'adapters/cli/bin.cjs');

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI through its bin launcher, as a user would. */
const cli = (...args: string[]): Run => {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

const scratch = scratchDir('validate');
const writeScratch = (name: string, text: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};

const unclassified = writeScratch(
  'unclassified.yaml',
  portalProbeWith((doc: Yaml) => {
    doc.observation_boundaries['participant-view'].view_rules = [];
  }),
);

jest.setTimeout(60_000);

describe('raes-tools --help', () => {
  it('lists the validate command and exits 0', () => {
    const run = cli('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Usage: raes-tools/);
    expect(run.stdout).toMatch(/validate \[options\] <scenario>/);
  });

  it('explains validate, its options and exit codes', () => {
    const run = cli('validate', '--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/--manifest <manifest>/);
    expect(run.stdout).toMatch(/--json/);
    expect(run.stdout).toMatch(/0 valid, 1 invalid, 2 usage error/);
  });
});

describe('raes-tools validate', () => {
  it('prints valid with a summary for the project example and its manifest, exit 0', () => {
    const run = cli('validate', PORTAL_PROBE_SCENARIO, '--manifest', PORTAL_PROBE_MANIFEST);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('valid: portal-probe: 1 participant, 1 policy, 1 affordance binding, 1 offer\n');
  });

  it('accepts the RAES enterprise example', () => {
    const run = cli('validate', ENTERPRISE_SCENARIO);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^valid: enterprise-participant-evidence-loop: 1 participant, 0 policies, 0 affordance bindings, 0 offers$/m);
  });

  it('prints the diagnostics of an invalid scenario, exit 1', () => {
    const run = cli('validate', unclassified);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /^error: participant\.tool-affordance-view-unclassified at participant\.behavior-specification\.participant-behavior\.tool-affordance\.portal-client$/m,
    );
    expect(run.stdout).toMatch(/^invalid: 1 error, 0 warnings$/m);
  });

  it('prints JSON for machines with --json', () => {
    const valid = cli('validate', PORTAL_PROBE_SCENARIO, '--manifest', PORTAL_PROBE_MANIFEST, '--json');
    expect(valid.status).toBe(0);
    expect(JSON.parse(valid.stdout)).toEqual({
      valid: true,
      diagnostics: [],
      summary: { scenario: 'portal-probe', participants: 1, policies: 1, affordance_bindings: 1, offers: 1 },
    });
    const invalid = cli('validate', unclassified, '--json');
    expect(invalid.status).toBe(1);
    const parsed = JSON.parse(invalid.stdout);
    expect(parsed.valid).toBe(false);
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({ code: 'participant.tool-affordance-view-unclassified', severity: 'error' }),
    ]);
  });

  it('reports claim defects of a manifest, exit 1', () => {
    const manifest = portalProbeManifest();
    manifest.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 0;
    const path = writeScratch('bad-limit.manifest.json', JSON.stringify(manifest));
    const run = cli('validate', PORTAL_PROBE_SCENARIO, '--manifest', path, '--json');
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['manifest.claim-limit-invalid']);
  });

  it('reports broken YAML and JSON as diagnostics, never a stack trace', () => {
    const yaml = cli('validate', writeScratch('broken.yaml', 'name: [\n'));
    expect(yaml.status).toBe(1);
    expect(yaml.stdout).toMatch(/scenario\.yaml-invalid/);
    const json = cli('validate', PORTAL_PROBE_SCENARIO, '--manifest', writeScratch('broken.json', '{'));
    expect(json.status).toBe(1);
    expect(json.stdout).toMatch(/manifest\.json-invalid/);
    for (const run of [yaml, json]) expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('reports a missing file in one line, exit 2', () => {
    const run = cli('validate', join(scratch, 'absent.yaml'));
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`raes-tools validate: cannot read scenario file "${join(scratch, 'absent.yaml')}": no such file\n`);
    const manifest = cli('validate', PORTAL_PROBE_SCENARIO, '--manifest', join(scratch, 'absent.json'));
    expect(manifest.status).toBe(2);
    expect(manifest.stderr).toMatch(/^raes-tools validate: cannot read manifest file ".*absent\.json": no such file\n$/);
  });

  it.each([
    ['no scenario argument', ['validate']],
    ['an unknown option', ['validate', PORTAL_PROBE_SCENARIO, '--strict']],
    ['an unknown command', ['validat', PORTAL_PROBE_SCENARIO]],
    ['a manifest option without a value', ['validate', PORTAL_PROBE_SCENARIO, '--manifest']],
  ])('exits 2 on a usage error: %s', (_, args) => {
    const run = cli(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: /);
  });

  it('checks a scenario written by hand', () => {
    const doc: Yaml = { name: 'tiny', agents: { solo: { entity: 'nobody' } } };
    const run = cli('validate', writeScratch('tiny.yaml', stringify(doc)));
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/scenario\.reference-unresolved at agents\.solo\.entity/);
  });
});
