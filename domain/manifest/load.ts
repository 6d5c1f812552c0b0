import { Either, isLeft, left, right } from 'fp-ts/Either';
import { checkTextBounds, describeBoundsProblem } from '../input/bounds';
import { Diagnostic, error } from '../scenario/diagnostics';
import { reportDecodeErrors } from '../scenario/decoding';
import { escapeUnshowable, firstMalformedPosition, withoutByteOrderMark } from '../unicode-text';
import { ManifestDocument, ManifestDocumentCodec } from './document';

/** Parses and decodes manifest text (JSON); every problem is reported at once. */
export const loadManifestDocument = (text: string): Either<Diagnostic[], ManifestDocument> => {
  const malformed = firstMalformedPosition(text);
  if (malformed !== undefined) {
    const at = `line ${malformed.line}, column ${malformed.column}`;
    return left([error('manifest.encoding-invalid', at, `the manifest is not valid UTF-8 text (first bad byte at ${at}), as JSON must be: save the file as UTF-8.`)]);
  }
  // Size and depth are checked on the raw text: JSON.parse and the decoder both recurse.
  const bounds = checkTextBounds(text, 'json');
  if (bounds !== undefined) return left([error('manifest.input-out-of-bounds', '(document)', describeBoundsProblem(bounds, 'manifest'))]);
  let value: unknown;
  try {
    // A byte-order mark is not JSON, but editors write one; RAES's scenarios may start with one too.
    value = JSON.parse(withoutByteOrderMark(text));
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return left([error('manifest.json-invalid', '(document)', `the manifest is not valid JSON (${escapeUnshowable(reason)}): fix the syntax.`)]);
  }
  const decoded = ManifestDocumentCodec.decode(value);
  if (isLeft(decoded)) {
    return left(reportDecodeErrors(decoded.left, { shape: 'manifest.shape-invalid', unknownKey: 'manifest.key-unknown' }));
  }
  return right(decoded.right);
};
