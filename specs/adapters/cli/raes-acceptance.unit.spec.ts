import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runValidate } from '../../../adapters/cli/commands/validate';

/**
 * The SDL acceptance set: RAES 3.3.0's example and test-fixture scenarios (schemas/raes/scenarios),
 * each with the verdict RAES's own validator gave it recorded beside it. `raes-tools validate` must
 * give the same verdict, except for the deliberate differences below, each explained in docs/decisions.md
 * under "RAES acceptance difference: <name>".
 */

const ROOT = join(__dirname, '../../..');
const SET = join(ROOT, 'schemas/raes/scenarios');
const DECISIONS = readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8');

interface Verdict {
  readonly scenario: string;
  readonly sha256: string;
  readonly raes_origin: string;
  readonly raes_verdict: 'valid' | 'invalid';
  readonly raes_diagnostics: ReadonlyArray<string>;
  readonly engine_verdict?: 'valid' | 'invalid';
  readonly difference?: string;
}

const verdictFiles = (folder: string): string[] =>
  readdirSync(join(SET, folder))
    .filter((name) => name.endsWith('.verdict.json'))
    .map((name) => join(SET, folder, name));

const ACCEPTANCE = [...verdictFiles('examples'), ...verdictFiles('fixtures')];

/** Scenarios RAES refuses and the engine loads on purpose, by the name of the decision that says why. */
const DELIBERATE_DIFFERENCES: Readonly<Record<string, string>> = {
  'fixtures/dsl437-two-owners.verdict.json': 'One participant under several policies',
  'fixtures/semantic-invalid-ambiguous-ref.verdict.json': 'Sections the engine does not read',
  'fixtures/semantic-invalid-dangling-ref.verdict.json': 'Sections the engine does not read',
  'fixtures/semantic-invalid-feature-cycle.verdict.json': 'Sections the engine does not read',
  'fixtures/workflow-unreachable.verdict.json': 'Sections the engine does not read',
};
const PROJECT_EXAMPLE = join(ROOT, 'examples/portal-probe.scenario.raes-verdict.json');

interface Validated {
  readonly code: number;
  readonly valid: boolean;
  readonly codes: string[];
  readonly warnings?: string[];
}

const validate = async (path: string, withWarnings = false): Promise<Validated> => {
  let out = '';
  const code = await runValidate({ scenarioPath: path, manifestPath: undefined, json: true }, { stdout: (t) => (out += t), stderr: (t) => (out += t) });
  const result = JSON.parse(out) as { valid: boolean; diagnostics: Array<{ code: string; severity: string }> };
  const of = (severity: string) => result.diagnostics.filter((d) => d.severity === severity).map((d) => d.code);
  return { code, valid: result.valid, codes: of('error'), ...(withWarnings ? { warnings: of('warning') } : {}) };
};

const read = (file: string): { readonly verdict: Verdict; readonly scenario: string } => {
  const verdict = JSON.parse(readFileSync(file, 'utf8')) as Verdict;
  return { verdict, scenario: join(dirname(file), verdict.scenario) };
};

describe('the RAES acceptance set', () => {
  it('holds RAES examples and test fixtures, valid and invalid, each recorded for the file it names', () => {
    expect(verdictFiles('examples').length).toBeGreaterThanOrEqual(14);
    expect(verdictFiles('fixtures').length).toBeGreaterThanOrEqual(30);
    const verdicts = ACCEPTANCE.map((file) => read(file).verdict.raes_verdict);
    expect(verdicts.filter((v) => v === 'invalid').length).toBeGreaterThanOrEqual(20);
    for (const file of [...ACCEPTANCE, PROJECT_EXAMPLE]) {
      const { verdict, scenario } = read(file);
      expect({ file, sha256: createHash('sha256').update(readFileSync(scenario)).digest('hex') }).toEqual({ file, sha256: verdict.sha256 });
    }
  });

  it('records an engine verdict exactly for the deliberate differences, each explained in docs/decisions.md', () => {
    const recorded = Object.fromEntries(
      ACCEPTANCE.map((file) => [file.slice(SET.length + 1), read(file).verdict] as const)
        .filter(([, verdict]) => verdict.engine_verdict !== undefined)
        .map(([name, verdict]) => [name, verdict.difference]),
    );
    expect(recorded).toEqual(DELIBERATE_DIFFERENCES);
    for (const difference of new Set(Object.values(DELIBERATE_DIFFERENCES))) {
      expect(DECISIONS).toContain(`## RAES acceptance difference: ${difference}\n`);
    }
  });

  it.each(ACCEPTANCE.map((file) => [file.slice(SET.length + 1), file]))("%s gets RAES 3.3.0's verdict", async (name, file) => {
    const { verdict, scenario } = read(file);
    const differs = DELIBERATE_DIFFERENCES[name] !== undefined;
    const expected = differs ? (verdict.raes_verdict === 'valid' ? 'invalid' : 'valid') : verdict.raes_verdict;
    const result = await validate(scenario);
    expect({ valid: result.valid, exit: result.code }).toEqual({ valid: expected === 'valid', exit: expected === 'valid' ? 0 : 1 });
    if (expected === 'invalid') expect(result.codes.length).toBeGreaterThan(0);
  });

  it('the project example is valid RAES SDL, as RAES 3.3.0 recorded, and valid here', async () => {
    const { verdict, scenario } = read(PROJECT_EXAMPLE);
    expect(verdict.raes_verdict).toBe('valid');
    expect(verdict.raes_diagnostics).toEqual([]);
    expect(await validate(scenario)).toEqual({ code: 0, valid: true, codes: [] });
  });
});

describe('what RAES refuses in the sections the engine reads, the engine refuses for the same reason', () => {
  const cases: Array<[string, string]> = [
    ['sem219-tool-ref-undeclared', 'participant.tool-affordance-tool-unresolved'],
    ['sem219-tool-ref-not-content', 'participant.tool-affordance-tool-unresolved'],
    ['dsl437-v1-without-progression', 'participant.autonomous-execution-incomplete'],
    ['dsl437-role-red', 'participant.autonomous-execution-evaluation-invalid'],
    ['dsl437-authority-widening', 'participant.autonomous-execution-evaluation-invalid'],
    ['dsl437-two-cadences', 'participant.autonomous-execution-cadence-invalid'],
    ['dsl437-cadence-unreachable', 'participant.autonomous-execution-cadence-invalid'],
    ['dsl437-negative-cadence-start', 'participant.autonomous-execution-cadence-invalid'],
    ['dsl437-externally-paced', 'participant.autonomous-execution-progression-invalid'],
    ['dsl437-wall-paced-backend-clock', 'participant.autonomous-execution-progression-invalid'],
    ['dsl437-activity-window-kind', 'participant.autonomous-execution-activity-invalid'],
    ['dsl437-activity-timing-unreachable', 'participant.autonomous-execution-activity-invalid'],
    ['dsl437-activity-window-subject', 'participant.autonomous-execution-activity-invalid'],
  ];
  it.each(cases)('%s: %s', async (name, code) => {
    const result = await validate(join(SET, 'fixtures', `${name}.sdl.yaml`));
    expect(new Set(result.codes)).toEqual(new Set([code]));
  });

  it.each([
    ['mapping-key-cycle', 'an alias inside the node its anchor names', /alias \*nodes at line 5, column 12 lies inside the node its anchor names/],
    ['mapping-key-merge', 'a YAML merge key', /merge key \("<<"\) at line 11, column 7 is not RAES SDL/],
  ])('%s: refuses %s before reading any section', async (name, _what, message) => {
    let out = '';
    const code = await runValidate(
      { scenarioPath: join(SET, 'fixtures', `${name}.yaml`), manifestPath: undefined, json: true },
      { stdout: (t) => (out += t), stderr: (t) => (out += t) },
    );
    const diagnostics = (JSON.parse(out) as { diagnostics: Array<{ code: string; message: string }> }).diagnostics;
    expect(code).toBe(1);
    expect(diagnostics.map((d) => d.code)).toEqual(['scenario.yaml-invalid']);
    expect(diagnostics[0]?.message).toMatch(message);
  });

  it('warns, where RAES refuses, of a participant run by two policies (a deliberate difference)', async () => {
    const result = await validate(join(SET, 'fixtures', 'dsl437-two-owners.sdl.yaml'), true);
    expect(result).toEqual({ code: 0, valid: true, codes: [], warnings: ['participant.autonomous-execution-owner-conflict'] });
  });
});
