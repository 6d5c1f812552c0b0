import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REFUSAL_CODES } from '../../domain/invocation/refusal-codes';

/**
 * docs/rules.md names, for every rule, the function that decides it and the spec that provokes it.
 * This keeps those names true: each file exists, each function or identifier occurs in its file, each
 * spec contains the test it is cited for, every refusal code of the domain is in a table, and every
 * comment that cites the page uses one of its stable names.
 */

const ROOT = resolve(__dirname, '..', '..');
const DOC_PATH = 'docs/rules.md';
const DOC = readFileSync(join(ROOT, DOC_PATH), 'utf8');

const isFile = (path: string): boolean => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile();
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface Row {
  readonly line: number;
  readonly cells: Readonly<Record<string, string>>;
}

/** Every table row of the page, its cells keyed by the lower-cased column header. */
const tableRows = (text: string): Row[] => {
  const rows: Row[] = [];
  let header: string[] | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line.startsWith('|')) {
      header = undefined;
      return;
    }
    const cells = line.slice(1, line.endsWith('|') ? -1 : undefined).split('|').map((cell) => cell.trim());
    if (header === undefined) {
      header = cells.map((cell) => cell.toLowerCase());
      return;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) return;
    const keyed: Record<string, string> = {};
    header.forEach((name, i) => {
      keyed[name] = cells[i] ?? '';
    });
    rows.push({ line: index + 1, cells: keyed });
  });
  return rows;
};

const ROWS = tableRows(DOC);

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
const quoted = (text: string): string[] => [...text.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? '');
const parts = (cell: string): string[] => cell.split('<br>').map((part) => part.trim()).filter((part) => part !== '');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const occursAsName = (name: string, source: string): boolean =>
  new RegExp(`(?<![A-Za-z0-9_$])${escapeRegExp(name)}(?![A-Za-z0-9_$])`).test(source);

/** A title segment as the spec writes it: a quoted string literal (an apostrophe may be escaped). */
const occursAsTitle = (segment: string, source: string): boolean =>
  [`'${segment.replace(/'/g, "\\'")}'`, `"${segment}"`, `\`${segment}\``].some((literal) => source.includes(literal));

interface NameReference {
  readonly line: number;
  readonly file: string;
  readonly names: readonly string[];
}

interface SpecReference {
  readonly line: number;
  readonly file: string;
  readonly titles: readonly string[];
}

const nameReferences: NameReference[] = ROWS.flatMap((row) =>
  parts(row.cells['decided by'] ?? '').map((part) => {
    const [file = '', ...names] = codeSpans(part);
    return { line: row.line, file, names };
  }),
);

const specReferences: SpecReference[] = ROWS.flatMap((row) =>
  parts(row.cells['provoked by'] ?? '').map((part) => ({ line: row.line, file: codeSpans(part)[0] ?? '', titles: quoted(part) })),
);

const STABLE_SECTIONS = ['port', 'history', 'operations', 'recovery', 'durability', 'authoring', 'compilation', 'registration', 'addresses'];
const ANCHORS = new Set([...DOC.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((match) => match[1]));

const SKIPPED = new Set(['node_modules', 'dist', 'esdata', '__pycache__', '.git']);
const sourceFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    const path = dir === '' ? name : `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|cjs|js|py)$/.test(name) ? [path] : [];
  });

describe('docs/rules.md', () => {
  it('has a row for each admission rule and failure row, with something that decides it and a spec that provokes it', () => {
    for (let n = 1; n <= 11; n++) expect(ANCHORS).toContain(`admission-rule-${n}`);
    for (let n = 1; n <= 10; n++) expect(ANCHORS).toContain(`failure-row-${n}`);
    for (const section of STABLE_SECTIONS) expect(ANCHORS).toContain(section);
    const ruleRows = ROWS.filter((row) => 'decided by' in row.cells);
    expect(ruleRows.length).toBeGreaterThanOrEqual(21);
    for (const row of ruleRows) {
      expect({ line: row.line, decidedBy: parts(row.cells['decided by'] ?? '').length > 0 }).toEqual({ line: row.line, decidedBy: true });
      expect({ line: row.line, provokedBy: parts(row.cells['provoked by'] ?? '').length > 0 }).toEqual({ line: row.line, provokedBy: true });
    }
  });

  it.each(nameReferences.map((reference) => [`line ${reference.line}: ${reference.file}`, reference] as const))(
    'names a file that exists, and functions that occur in it (%s)',
    (_label, reference) => {
      expect({ file: reference.file, exists: isFile(reference.file) }).toEqual({ file: reference.file, exists: true });
      expect(reference.names.length).toBeGreaterThan(0);
      const source = read(reference.file);
      const missing = reference.names.filter((name) => !occursAsName(name, source));
      expect({ file: reference.file, missing }).toEqual({ file: reference.file, missing: [] });
    },
  );

  it.each(specReferences.map((reference) => [`line ${reference.line}: ${reference.file}`, reference] as const))(
    'names a spec that exists and contains each cited test title (%s)',
    (_label, reference) => {
      expect({ file: reference.file, spec: /^specs\/.+\.(unit|int|e2e)\.spec\.ts$/.test(reference.file) && isFile(reference.file) }).toEqual({
        file: reference.file,
        spec: true,
      });
      expect(reference.titles.length).toBeGreaterThan(0);
      const source = read(reference.file);
      const missing = reference.titles.filter((title) => title.split(' › ').some((segment) => !occursAsTitle(segment, source)));
      expect({ file: reference.file, missing }).toEqual({ file: reference.file, missing: [] });
    },
  );

  it('lists every refusal code of the domain in a table', () => {
    const listed = new Set(
      ROWS.flatMap((row) =>
        Object.entries(row.cells)
          .filter(([header]) => /^(refusal|code)/.test(header))
          .flatMap(([, cell]) => codeSpans(cell)),
      ),
    );
    expect(REFUSAL_CODES.filter((code) => !listed.has(code))).toEqual([]);
  });

  it('names only paths that exist', () => {
    const paths = codeSpans(DOC).filter((span) => /^[\w.-]+(\/[\w.-]+)+\.(ts|md|json)$/.test(span));
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !isFile(path))).toEqual([]);
  });

  it('is cited only by its stable names', () => {
    const stable = new RegExp(`^(admission rule (\\d+)|failure row (\\d+)|${STABLE_SECTIONS.join('|')})\\b`);
    const wrong: string[] = [];
    for (const file of sourceFiles('')) {
      const source = read(file);
      for (const match of source.matchAll(/docs\/rules\.md,\s+([^\n]*)/g)) {
        const cited = (match[1] ?? '').replace(/^\s*\*\s*/, '');
        const name = stable.exec(cited);
        const anchor = name === null ? undefined : name[2] !== undefined ? `admission-rule-${name[2]}` : name[3] !== undefined ? `failure-row-${name[3]}` : name[1];
        if (anchor === undefined || !ANCHORS.has(anchor)) wrong.push(`${file}: ${DOC_PATH}, ${cited.slice(0, 40)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
