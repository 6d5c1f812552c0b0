import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * A user's clone has nothing beside it: no source, spec, bench or script may name a path outside the
 * repository. RAES's files that the specs need are vendored under schemas/raes/.
 */

const ROOT = resolve(__dirname, '..', '..');
const SCANNED = ['domain', 'projections', 'adapters', 'specs', 'bench', 'examples', 'clients', 'index.ts', '.ci'];
const SOURCE = /\.(ts|js|mjs|cjs|py|sh)$|^run$/;

const filesUnder = (path: string): string[] => {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  if (stat.isFile()) return SOURCE.test(path.split(sep).pop() ?? '') ? [path] : [];
  return readdirSync(path)
    .filter((name) => name !== 'node_modules' && name !== '__pycache__')
    .flatMap((name) => filesUnder(join(path, name)));
};

const outside = (target: string): boolean => {
  const rel = relative(ROOT, target);
  return rel === '..' || rel.startsWith(`..${sep}`);
};

/** `join(__dirname, '..', 'x')` and `resolve(__dirname, '../x')`: the literal segments after __dirname. */
const DIRNAME_CALL = /(?:join|resolve)\(\s*__dirname\s*((?:,\s*'[^']*'\s*)+)/g;
/** A quoted relative path, as an import specifier or an argument. */
const RELATIVE_LITERAL = /['"](\.\.\/[^'"\s]*)['"]/g;
/** Absolute paths into the workplace, and the shared folder by name. */
const FOREIGN = [new RegExp(['', 'work', ''].join('/')), new RegExp(['shared', 'raes'].join('/'))];

const findingsOf = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  const here = dirname(file);
  const findings: string[] = [];
  if (file === __filename) return findings;
  for (const match of text.matchAll(DIRNAME_CALL)) {
    const segments = [...(match[1] ?? '').matchAll(/'([^']*)'/g)].map((segment) => segment[1] ?? '');
    if (outside(resolve(here, ...segments))) findings.push(match[0]);
  }
  for (const match of text.matchAll(RELATIVE_LITERAL)) {
    if (outside(resolve(here, match[1] ?? ''))) findings.push(match[1] ?? '');
  }
  for (const pattern of FOREIGN) {
    if (pattern.test(text)) findings.push(pattern.source);
  }
  return findings.map((finding) => `${relative(ROOT, file)}: ${finding}`);
};

describe('the repository stands alone', () => {
  const files = SCANNED.flatMap((entry) => filesUnder(join(ROOT, entry)));

  it('scans the project sources', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain(__filename);
  });

  it('names no path outside the repository', () => {
    expect(files.flatMap(findingsOf)).toEqual([]);
  });

  it('notices a path that leaves the repository', () => {
    const probe = join(ROOT, 'specs', 'repository', 'probe.ts');
    const text = `readFileSync(join(__dirname, '..', '..', '..', 'elsewhere', 'x.json'))`;
    const escaped = [...text.matchAll(DIRNAME_CALL)].some((match) =>
      outside(resolve(dirname(probe), ...[...(match[1] ?? '').matchAll(/'([^']*)'/g)].map((s) => s[1] ?? ''))),
    );
    expect(escaped).toBe(true);
  });

  it('vendors the RAES files the specs read, with their licence', () => {
    const vendored = join(ROOT, 'schemas', 'raes');
    expect(readFileSync(join(vendored, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
    expect(readFileSync(join(vendored, 'README.md'), 'utf8')).toMatch(/release 3\.3\.0/);
  });
});
