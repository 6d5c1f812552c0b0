import { Either, isLeft, left, map, right } from 'fp-ts/Either';
import { MAX_YAML_ALIAS_COUNT, checkTextBounds, describeBoundsProblem } from '../input/bounds';
import { Diagnostic, error } from './diagnostics';
import { reportDecodeErrors } from './decoding';
import { ScenarioDocument, ScenarioDocumentCodec } from './document';
import { firstMalformedPosition } from '../unicode-text';
import { parseYamlSource } from './yaml-source';
import { checkYamlStructure } from './yaml-structure';

/**
 * A decoded scenario and, by path, how numbers were written where their value reads differently (3.0,
 * 0x10): RAES tells an argument value written 3.0 (a float) from 3, which the decoded value does not.
 */
export interface LoadedScenarioDocument {
  readonly document: ScenarioDocument;
  readonly authoredNumbers: ReadonlyMap<string, string>;
}

/** Parses and decodes scenario text (YAML), keeping how its numbers were written; every problem is reported at once. */
export const loadScenarioSource = (text: string): Either<Diagnostic[], LoadedScenarioDocument> => {
  const malformed = firstMalformedPosition(text);
  if (malformed !== undefined) {
    const at = `line ${malformed.line}, column ${malformed.column}`;
    return left([error('scenario.encoding-invalid', at, `the scenario is not valid UTF-8 text (first bad byte at ${at}), as RAES SDL must be: save the file as UTF-8.`)]);
  }
  const bounds = checkTextBounds(text, 'yaml');
  if (bounds !== undefined) return left([error('scenario.input-out-of-bounds', '(document)', describeBoundsProblem(bounds, 'scenario'))]);
  const source = parseYamlSource(text);
  if (!source.ok) return left(source.diagnostics);
  const structure = checkYamlStructure(source.document, source.lineCounter);
  if (structure.problems.length > 0) return left(structure.problems);
  let value: unknown;
  try {
    value = source.document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return left([
      error('scenario.aliases-excessive', '(document)', `${reason}: the scenario expands its aliases more than ${MAX_YAML_ALIAS_COUNT} times; write the repeated parts out or use fewer aliases.`),
    ]);
  }
  const decoded = ScenarioDocumentCodec.decode(value);
  if (isLeft(decoded)) {
    return left(reportDecodeErrors(decoded.left, { shape: 'scenario.shape-invalid', unknownKey: 'scenario.key-unknown' }, structure.authoredNumbers));
  }
  return right({ document: decoded.right, authoredNumbers: structure.authoredNumbers });
};

/** Parses and decodes scenario text (YAML) to its document; every problem is reported at once. */
export const loadScenarioDocument = (text: string): Either<Diagnostic[], ScenarioDocument> =>
  map((loaded: LoadedScenarioDocument) => loaded.document)(loadScenarioSource(text));
