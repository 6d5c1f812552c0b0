import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve, sep } from 'node:path';

/**
 * The layers of docs/architecture.md, checked on every import of the engine's own code: the domain
 * model at the bottom, its ports beside it, the application layer over both, projections over the
 * model and the ports, adapters on top. Nothing imports upward and no module is part of a cycle.
 */

const ROOT = resolve(__dirname, '..', '..');

type Layer = 'model' | 'ports' | 'application' | 'projections' | 'adapters' | 'examples' | 'entry';

const layerOf = (file: string): Layer | undefined => {
  if (file.startsWith('domain/ports/')) return 'ports';
  if (file.startsWith('domain/application/')) return 'application';
  if (file.startsWith('domain/')) return 'model';
  if (file.startsWith('projections/')) return 'projections';
  if (file.startsWith('adapters/')) return 'adapters';
  if (file.startsWith('examples/')) return 'examples';
  if (file === 'index.ts') return 'entry';
  return undefined;
};

/** Which layers each layer may import. */
const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  model: ['model', 'ports'],
  ports: ['model', 'ports'],
  application: ['model', 'ports', 'application'],
  projections: ['model', 'ports', 'projections'],
  adapters: ['model', 'ports', 'application', 'projections', 'adapters', 'examples'],
  examples: ['model', 'ports', 'application', 'projections', 'adapters', 'examples'],
  entry: ['model', 'ports', 'application', 'projections', 'adapters', 'examples'],
};

/**
 * Packages the inner layers may use: pure computation only. `node:crypto` is allowed for its hash
 * functions (event ids, stable digests); no inner module opens a file, a socket or a database.
 */
const PURE_PACKAGES = ['fp-ts', 'io-ts', 'yaml', 'node:crypto'];
const PACKAGES: Readonly<Partial<Record<Layer, readonly string[]>>> = {
  model: PURE_PACKAGES,
  ports: [],
  application: PURE_PACKAGES,
  projections: PURE_PACKAGES,
};

const SKIPPED = new Set(['node_modules', 'dist', 'specs', 'bench', 'esdata', '__pycache__']);

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    const path = dir === '' ? name : `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

const specifiersOf = (file: string): string[] =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');

const resolveRelative = (from: string, specifier: string): string | undefined => {
  const base = normalize(join(dirname(from), specifier)).split(sep).join('/');
  return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => existsSync(join(ROOT, candidate)) && statSync(join(ROOT, candidate)).isFile());
};

const packageOf = (specifier: string): string =>
  specifier.startsWith('node:') ? specifier : specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? specifier);

type Edge = { readonly from: string; readonly to: string };

const FILES = sourceFiles('');

const graph = (): { edges: Edge[]; packages: { from: string; name: string }[] } => {
  const edges: Edge[] = [];
  const packages: { from: string; name: string }[] = [];
  for (const file of FILES) {
    for (const specifier of specifiersOf(file)) {
      if (specifier.startsWith('.')) {
        const to = resolveRelative(file, specifier);
        if (to !== undefined) edges.push({ from: file, to });
      } else packages.push({ from: file, name: packageOf(specifier) });
    }
  }
  return { edges, packages };
};

const upwardImports = (edges: readonly Edge[]): string[] =>
  edges.flatMap(({ from, to }) => {
    const source = layerOf(from);
    const target = layerOf(to);
    if (source === undefined || target === undefined || MAY_IMPORT[source].includes(target)) return [];
    return [`${from} (${source}) imports ${to} (${target})`];
  });

const foreignPackages = (packages: readonly { from: string; name: string }[]): string[] =>
  packages.flatMap(({ from, name }) => {
    const allowed = PACKAGES[layerOf(from) ?? 'adapters'];
    return allowed === undefined || allowed.includes(name) ? [] : [`${from} imports ${name}`];
  });

/** Strongly connected components of more than one module (Tarjan). */
const cyclesOf = (edges: readonly Edge[]): string[][] => {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return cycles;
};

describe('the layers', () => {
  const { edges, packages } = graph();

  it('reads the whole engine', () => {
    expect(FILES).toEqual(expect.arrayContaining(['domain/ports/event-store.ts', 'domain/application/runtime-manager.ts', 'projections/runner.ts']));
    expect(edges.length).toBeGreaterThan(200);
  });

  it('never import upward', () => {
    expect(upwardImports(edges)).toEqual([]);
  });

  it('keep the inner layers free of I/O packages', () => {
    expect(foreignPackages(packages)).toEqual([]);
  });

  it('form no import cycle', () => {
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('are checked by rules that can fail', () => {
    expect(upwardImports([{ from: 'projections/runner.ts', to: 'adapters/event-store/index.ts' }])).toHaveLength(1);
    expect(upwardImports([{ from: 'domain/application/recovery.ts', to: 'projections/runner.ts' }])).toHaveLength(1);
    expect(upwardImports([{ from: 'domain/invocation/decide.ts', to: 'domain/application/index.ts' }])).toHaveLength(1);
    expect(foreignPackages([{ from: 'domain/application/recovery.ts', name: 'better-sqlite3' }])).toHaveLength(1);
    expect(foreignPackages([{ from: 'domain/ports/event-store.ts', name: 'node:fs' }])).toHaveLength(1);
    expect(
      cyclesOf([
        { from: 'a.ts', to: 'b.ts' },
        { from: 'b.ts', to: 'a.ts' },
      ]),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
