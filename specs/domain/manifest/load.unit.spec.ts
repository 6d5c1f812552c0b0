import { isLeft, isRight } from 'fp-ts/Either';
import { loadManifestDocument } from '../../../domain/manifest';
import { portalProbeManifest } from '../scenario/scenario-fixtures';

const example = (): string => JSON.stringify(portalProbeManifest(), null, 2);
const messagesOf = (text: string): string[] => {
  const loaded = loadManifestDocument(text);
  return isLeft(loaded) ? loaded.left.map((d) => `${d.code} at ${d.address}: ${d.message}`) : [];
};

describe('manifest text', () => {
  it('accepts a leading byte-order mark, as the scenario loader does', () => {
    expect(isRight(loadManifestDocument(`\uFEFF${example()}`))).toBe(true);
  });

  it('refuses text that is not UTF-8, at its first bad byte', () => {
    const text = example().replace('"backend": "', '"backend": "caf\uDCE9');
    expect(messagesOf(text)).toEqual([expect.stringMatching(/^manifest\.encoding-invalid at line 2, column \d+: the manifest is not valid UTF-8 text/)]);
  });

  it('shows invisible characters of a JSON error as escapes', () => {
    const [message] = messagesOf('\u200B{"backend": "a"}');
    expect(message).toMatch(/^manifest\.json-invalid at \(document\): the manifest is not valid JSON \(.*\\u200b.*\): fix the syntax\.$/);
    expect(message).not.toContain('\u200B');
  });

  it('describes a number too large to hold instead of calling it null', () => {
    const text = example().replace(/"timeout_seconds": \d+/, '"timeout_seconds": 1e400');
    expect(messagesOf(text)).toEqual([expect.stringContaining('got a number too large to represent.')]);
  });

  it('does not pass off a rounded whole number as the one written', () => {
    const text = example().replace(/"timeout_seconds": \d+/, '"timeout_seconds": 9007199254740993');
    const [message] = messagesOf(text);
    expect(message).toContain('got a number beyond 9007199254740991 (about 9007199254740992), too large to read exactly.');
  });
});
