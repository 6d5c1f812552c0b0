import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, scratchDir, withoutStack } from './support/cli';

const scratch = scratchDir('validate-hostile');
const write = (name: string, text: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};

jest.setTimeout(60_000);

describe('raes-tools validate on hostile input', () => {
  it('reports a YAML alias bomb as a diagnostic with exit 1', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i += 1) levels.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => (i === 1 ? '*a' : `*l${i - 1}`)).join(', ')}]`);
    const run = cli('validate', write('bomb.yaml', levels.join('\n') + '\n'));
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/scenario\.aliases-excessive/);
    expect(withoutStack(run)).toBe(true);
  });

  it('reports a manifest nested 200,000 deep as a diagnostic with exit 1', () => {
    const run = cli('validate', SCENARIO, '--manifest', write('deep.json', '['.repeat(200_000) + ']'.repeat(200_000)));
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/manifest\.input-out-of-bounds.*nests deeper than 64 levels/s);
    expect(withoutStack(run)).toBe(true);
  });

  it('still accepts the example scenario and manifest', () => {
    expect(cli('validate', SCENARIO, '--manifest', MANIFEST).status).toBe(0);
  });
});
