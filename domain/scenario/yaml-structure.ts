import { type Alias, type Document, type LineCounter, isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import { MAX_NESTING_DEPTH } from '../input/bounds';
import { Diagnostic, error } from './diagnostics';

export interface YamlStructure {
  readonly problems: Diagnostic[];
  /**
   * How a number was written, by dotted path, where its value reads differently (`1.0`, `0x10`) or may
   * not be exact (a whole number beyond 2^53 - 1), so diagnostics can quote what the author wrote.
   */
  readonly authoredNumbers: Map<string, string>;
}

interface Visit {
  readonly node: unknown;
  readonly depth: number;
  readonly parent?: Visit;
  readonly key?: string;
}

const pathOf = (visit: Visit): string => {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
};

/**
 * The YAML RAES refuses before it reads a section, found with an explicit stack so no document can
 * overflow it: nesting too deep, duplicate keys, merge keys, cyclic aliases, explicit tags, keys that
 * are not strings, and numbers that are not finite.
 */
export const checkYamlStructure = (document: Document, lineCounter: LineCounter): YamlStructure => {
  const where = (offset: number | undefined): string => {
    if (offset === undefined) return '(document)';
    const position = lineCounter.linePos(offset);
    return `line ${position.line}, column ${position.col}`;
  };
  const problems: Diagnostic[] = [];
  const authoredNumbers = new Map<string, string>();
  const pending: Visit[] = [{ node: document.contents, depth: 0 }];
  while (pending.length > 0) {
    const visit = pending.pop() as Visit;
    const { node, depth } = visit;
    if (isAlias(node)) {
      const cycle = aliasCycleProblem(node, document, where);
      if (cycle !== undefined) problems.push(cycle);
      continue;
    }
    if (node === null || node === undefined) continue;
    const tagged = explicitTagProblem(node, where);
    if (tagged !== undefined) problems.push(tagged);
    if (isScalar(node)) {
      if (typeof node.value !== 'number') continue;
      if (!Number.isFinite(node.value)) {
        const at = where(node.range?.[0]);
        problems.push(error('scenario.yaml-invalid', at, `the number ${node.source} at ${at} is not finite (RAES SDL allows no infinity, NaN or overflowing number): write a finite number.`));
      } else if (node.source !== undefined && (node.source !== String(node.value) || !Number.isSafeInteger(node.value))) {
        authoredNumbers.set(pathOf(visit), node.source);
      }
      continue;
    }
    if (depth >= MAX_NESTING_DEPTH) {
      const range = (node as { range?: [number, number, number] }).range;
      const at = where(range?.[0]);
      return { problems: [error('scenario.input-out-of-bounds', at, `the scenario nests deeper than ${MAX_NESTING_DEPTH} levels at ${at}: flatten it.`)], authoredNumbers };
    }
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const keyProblem = keyShapeProblem(pair.key, document, where);
        if (keyProblem !== undefined) problems.push(keyProblem);
        if (isScalar(pair.key)) {
          const tag = explicitTagProblem(pair.key, where);
          if (tag !== undefined) problems.push(tag);
          const key = String(pair.key.value);
          if (key === MERGE_KEY && pair.key.type === 'PLAIN') {
            const at = where(pair.key.range?.[0]);
            problems.push(error('scenario.yaml-invalid', at, `a YAML merge key ("<<") at ${at} is not RAES SDL: write the merged keys out in this mapping.`));
          }
          if (seen.has(key)) {
            const at = where(pair.key.range?.[0]);
            problems.push(error('scenario.yaml-invalid', at, `Map keys must be unique ("${key}" appears twice): fix the YAML syntax at ${at}.`));
          }
          seen.add(key);
          pending.push({ node: pair.value, depth: depth + 1, parent: visit, key });
        } else {
          pending.push({ node: pair.key, depth: depth + 1 });
          pending.push({ node: pair.value, depth: depth + 1 });
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => pending.push({ node: isPair(item) ? item.value : item, depth: depth + 1, parent: visit, key: String(index) }));
    }
  }
  return { problems, authoredNumbers };
};

const MERGE_KEY = '<<';

/** RAES's YAML profile refuses every explicit tag (`!!int "3"`, `!custom`): values are read as written. */
const explicitTagProblem = (node: object, where: (offset: number | undefined) => string): Diagnostic | undefined => {
  const { tag, range } = node as { tag?: string; range?: [number, number, number] };
  if (tag === undefined) return undefined;
  const at = where(range?.[0]);
  return error('scenario.yaml-invalid', at, `the explicit YAML tag ${tag.replace('tag:yaml.org,2002:', '!!')} at ${at} is not sdl-yaml/v1 authoring syntax: remove it and write the value plainly (quoted if it is a string).`);
};

/** RAES constructs every mapping key as a string: a key read as a number, true/false, null or a collection is refused. */
const keyShapeProblem = (key: unknown, document: Document, where: (offset: number | undefined) => string): Diagnostic | undefined => {
  const resolved = isAlias(key) ? key.resolve(document) : key;
  if (isScalar(resolved) && typeof resolved.value === 'string') return undefined;
  const at = where((key as { range?: [number, number, number] } | null)?.range?.[0]);
  const written = isScalar(resolved) ? `"${resolved.source}"` : 'that is a collection';
  return error('scenario.yaml-invalid', at, `the mapping key ${written} at ${at} is not read as a string, as RAES SDL requires of every key: quote it, or write a plain name.`);
};

/** An alias inside the very node its anchor names makes the document infinite; RAES refuses it. */
const aliasCycleProblem = (alias: Alias, document: Document, where: (offset: number | undefined) => string): Diagnostic | undefined => {
  const target = alias.resolve(document);
  const start = alias.range?.[0];
  const range = target?.range;
  if (start === undefined || range === undefined || range === null || start < range[0] || start >= range[2]) return undefined;
  const at = where(start);
  return error('scenario.yaml-invalid', at, `the alias *${alias.source} at ${at} lies inside the node its anchor names, a cycle RAES SDL does not allow: copy the values it stands for instead.`);
};
