import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, scratchDir, withoutStack } from './support/cli';

const scratch = scratchDir('validate-encoding');
const write = (name: string, content: string | Buffer): string => {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
};

jest.setTimeout(60_000);

describe('raes-tools validate on text encodings', () => {
  it('refuses a Latin-1 scenario with a diagnostic and exit 1, as RAES refuses it', () => {
    const latin1 = Buffer.from(readFileSync(SCENARIO, 'utf8').replace(/^description: >/m, 'description: > caf\u00e9'), 'latin1');
    const run = cli('validate', write('latin1.yaml', latin1));
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/scenario\.encoding-invalid at line \d+, column \d+\n\s+the scenario is not valid UTF-8 text/);
    expect(withoutStack(run)).toBe(true);
  });

  it('accepts a manifest that starts with a byte-order mark', () => {
    const run = cli('validate', SCENARIO, '--manifest', write('bom.json', `\uFEFF${readFileSync(MANIFEST, 'utf8')}`));
    expect(run.stdout + run.stderr).toMatch(/^valid:/m);
    expect(run.status).toBe(0);
  });
});
