import { parseDocument } from 'yaml';
import { Either, isLeft, left, right } from 'fp-ts/Either';
import { Diagnostic, error } from './diagnostics';
import { reportDecodeErrors } from './decoding';
import { ScenarioDocument, ScenarioDocumentCodec } from './document';

/** Parses and decodes scenario text (YAML); every problem is reported at once. */
export const loadScenarioDocument = (text: string): Either<Diagnostic[], ScenarioDocument> => {
  const parsed = parseDocument(text, { prettyErrors: true });
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
  const value: unknown = parsed.toJS();
  const decoded = ScenarioDocumentCodec.decode(value);
  if (isLeft(decoded)) {
    return left(reportDecodeErrors(decoded.left, { shape: 'scenario.shape-invalid', unknownKey: 'scenario.key-unknown' }));
  }
  return right(decoded.right);
};
