import { Either, isLeft, left, right } from 'fp-ts/Either';
import { checkTextBounds, describeBoundsProblem } from '../input/bounds';
import { Diagnostic, error } from '../scenario/diagnostics';
import { reportDecodeErrors } from '../scenario/decoding';
import { ManifestDocument, ManifestDocumentCodec } from './document';

/** Parses and decodes manifest text (JSON); every problem is reported at once. */
export const loadManifestDocument = (text: string): Either<Diagnostic[], ManifestDocument> => {
  // Size and depth are checked on the raw text: JSON.parse and the decoder both recurse.
  const bounds = checkTextBounds(text, 'json');
  if (bounds !== undefined) return left([error('manifest.input-out-of-bounds', '(document)', describeBoundsProblem(bounds, 'manifest'))]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return left([error('manifest.json-invalid', '(document)', `the manifest is not valid JSON (${reason}): fix the syntax.`)]);
  }
  const decoded = ManifestDocumentCodec.decode(value);
  if (isLeft(decoded)) {
    return left(reportDecodeErrors(decoded.left, { shape: 'manifest.shape-invalid', unknownKey: 'manifest.key-unknown' }));
  }
  return right(decoded.right);
};
