import fc from 'fast-check';
import { isLeft } from 'fp-ts/Either';
import { MAX_INPUT_CHARACTERS, checkTextBounds } from '../../../domain/input/bounds';
import { loadManifestDocument } from '../../../domain/manifest';
import { loadScenario } from '../../../domain/scenario';

const codesOf = (diagnostics: ReadonlyArray<{ code: string }>): string[] => diagnostics.map((d) => d.code);

describe('bounds on scenario and manifest text', () => {
  it('refuses a JSON manifest nested 200,000 deep with a diagnostic, not a stack overflow', () => {
    const decoded = loadManifestDocument('['.repeat(200_000) + ']'.repeat(200_000));
    expect(isLeft(decoded) && codesOf(decoded.left)).toEqual(['manifest.input-out-of-bounds']);
  });

  it('refuses a YAML scenario nested 300,000 deep in flow style before the parser sees it', () => {
    const result = loadScenario(`name: ${'['.repeat(300_000)}${']'.repeat(300_000)}`);
    expect(codesOf(result.diagnostics)).toEqual(['scenario.input-out-of-bounds']);
  });

  it('refuses a YAML scenario nested past the limit in block style', () => {
    const text = Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' x\n';
    const result = loadScenario(text);
    expect(codesOf(result.diagnostics)).toEqual(['scenario.input-out-of-bounds']);
    expect(result.diagnostics[0]?.message).toMatch(/nests deeper than 64 levels at line 65/);
  });

  it('refuses text over the size limit, naming the limit', () => {
    const text = `name: "${'x'.repeat(MAX_INPUT_CHARACTERS)}"`;
    expect(codesOf(loadScenario(text).diagnostics)).toEqual(['scenario.input-out-of-bounds']);
    const decoded = loadManifestDocument(`"${'x'.repeat(MAX_INPUT_CHARACTERS)}"`);
    expect(isLeft(decoded) && decoded.left[0]?.message).toContain(`over the limit of ${MAX_INPUT_CHARACTERS}`);
  });

  it('accepts the text of a 10,000-participant scenario (about 1.6 MB)', () => {
    const participants = Array.from({ length: 10_000 }, (_, i) => `  - address: participant.behavior.agent-${i}\n    role: ${'r'.repeat(130)}\n`).join('');
    expect(participants.length).toBeGreaterThan(1_600_000);
    expect(checkTextBounds(`participants:\n${participants}`, 'yaml')).toBeUndefined();
  });

  it('turns a YAML alias bomb into a diagnostic', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i += 1) levels.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => (i === 1 ? '*a' : `*l${i - 1}`)).join(', ')}]`);
    const result = loadScenario(levels.join('\n') + '\n');
    expect(codesOf(result.diagnostics)).toEqual(['scenario.aliases-excessive']);
  });

  it('still reports a duplicate key, at the second occurrence', () => {
    const result = loadScenario('name: a\nother: b\nname: c\n');
    expect(result.diagnostics.map((d) => [d.code, d.address])).toEqual([['scenario.yaml-invalid', 'line 3, column 1']]);
  });

  it('ignores brackets inside quoted strings and comments when measuring depth', () => {
    const deep = '['.repeat(100);
    expect(checkTextBounds(`{"a": "${deep}"}`, 'json')).toBeUndefined();
    expect(checkTextBounds(`a: '${deep}'\nb: "${deep}" # ${deep}\n`, 'yaml')).toBeUndefined();
    expect(checkTextBounds(`a: don't ${deep}`, 'yaml')).toEqual({ kind: 'too-deep', line: 1 });
  });

  it('no input makes either loader throw', () => {
    const structured = fc.oneof(fc.string(), fc.json(), fc.stringMatching(/^[[\]{}:,\-"' \n&*a-c]{0,200}$/));
    fc.assert(
      fc.property(structured, (text) => {
        loadScenario(text);
        loadManifestDocument(text);
      }),
      { numRuns: 300 },
    );
  });
});
