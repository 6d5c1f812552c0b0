import { type Alias, LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { Either, isLeft, left, right } from 'fp-ts/Either';
import { MAX_NESTING_DEPTH, MAX_YAML_ALIAS_COUNT, checkTextBounds, describeBoundsProblem } from '../input/bounds';
import { Diagnostic, error } from './diagnostics';
import { reportDecodeErrors } from './decoding';
import { ScenarioDocument, ScenarioDocumentCodec } from './document';

/** Parses and decodes scenario text (YAML); every problem is reported at once. */
export const loadScenarioDocument = (text: string): Either<Diagnostic[], ScenarioDocument> => {
  const bounds = checkTextBounds(text, 'yaml');
  if (bounds !== undefined) return left([error('scenario.input-out-of-bounds', '(document)', describeBoundsProblem(bounds, 'scenario'))]);
  const lineCounter = new LineCounter();
  // The yaml package checks key uniqueness with a scan per key (quadratic in a map's size);
  // structureProblems checks it with one Set per map instead.
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter });
  if (parsed.errors.length > 0) {
    return left(
      parsed.errors.map((e) => {
        const position = e.linePos?.[0];
        const where = position === undefined ? '(document)' : `line ${position.line}, column ${position.col}`;
        const firstLine = e.message.split('\n')[0] ?? e.message;
        return error('scenario.yaml-invalid', where, `${firstLine}: fix the YAML syntax at ${where}.`);
      }),
    );
  }
  const structural = structureProblems(parsed, lineCounter);
  if (structural.length > 0) return left(structural);
  let value: unknown;
  try {
    value = parsed.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return left([
      error('scenario.aliases-excessive', '(document)', `${reason}: the scenario expands its aliases more than ${MAX_YAML_ALIAS_COUNT} times; write the repeated parts out or use fewer aliases.`),
    ]);
  }
  const decoded = ScenarioDocumentCodec.decode(value);
  if (isLeft(decoded)) {
    return left(reportDecodeErrors(decoded.left, { shape: 'scenario.shape-invalid', unknownKey: 'scenario.key-unknown' }));
  }
  return right(decoded.right);
};

/**
 * Nesting depth, duplicate keys, and the YAML RAES refuses before it reads a section (merge keys and
 * cyclic aliases), found with an explicit stack so no document can overflow it.
 */
const structureProblems = (document: Document, lineCounter: LineCounter): Diagnostic[] => {
  const where = (offset: number | undefined): string => {
    if (offset === undefined) return '(document)';
    const position = lineCounter.linePos(offset);
    return `line ${position.line}, column ${position.col}`;
  };
  const problems: Diagnostic[] = [];
  const pending: Array<{ node: unknown; depth: number }> = [{ node: document.contents, depth: 0 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop() as { node: unknown; depth: number };
    if (isAlias(node)) {
      const cycle = aliasCycleProblem(node, document, where);
      if (cycle !== undefined) problems.push(cycle);
      continue;
    }
    if (node === null || node === undefined || isScalar(node)) continue;
    if (depth >= MAX_NESTING_DEPTH) {
      const range = (node as { range?: [number, number, number] }).range;
      const at = where(range?.[0]);
      return [error('scenario.input-out-of-bounds', at, `the scenario nests deeper than ${MAX_NESTING_DEPTH} levels at ${at}: flatten it.`)];
    }
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
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
        } else pending.push({ node: pair.key, depth: depth + 1 });
        pending.push({ node: pair.value, depth: depth + 1 });
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push({ node: isPair(item) ? item.value : item, depth: depth + 1 });
    }
  }
  return problems;
};

const MERGE_KEY = '<<';

/** An alias inside the very node its anchor names makes the document infinite; RAES refuses it. */
const aliasCycleProblem = (alias: Alias, document: Document, where: (offset: number | undefined) => string): Diagnostic | undefined => {
  const target = alias.resolve(document);
  const start = alias.range?.[0];
  const range = target?.range;
  if (start === undefined || range === undefined || range === null || start < range[0] || start >= range[2]) return undefined;
  const at = where(start);
  return error('scenario.yaml-invalid', at, `the alias *${alias.source} at ${at} lies inside the node its anchor names, a cycle RAES SDL does not allow: copy the values it stands for instead.`);
};
