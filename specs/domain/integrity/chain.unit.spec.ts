import { createHash } from 'node:crypto';
import { CHAIN_KEY, chainLink, dataDigest, linkDigestOfData, linkDigestOfTexts, linkMetadataJson, linkOf, storedLink } from '../../../domain/integrity/chain';

/** docs/integrity.md's version-2 rule, written out from the text with node:crypto alone. */
const b64url = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');
const hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('chain links, version 2', () => {
  it('digest the data digest (type, line feed, canonical data) with the place and predecessor, in base64url', () => {
    const first = chainLink(null, 's', 0, 'Opened', { n: 1 });
    expect(first).toEqual({ v: 2, digest: b64url(`{"data_sha256":"${hex('Opened\n{"n":1}')}","previous":null,"revision":0,"stream":"s","v":2}`), previous: null });
    const next = chainLink(first.digest, 'a "quoted" stream', 1, 'Moved', { to: 'x', at: [1.5] });
    const data = hex('Moved\n{"at":[1.5],"to":"x"}');
    expect(next.digest).toBe(b64url(`{"data_sha256":"${data}","previous":"${first.digest}","revision":1,"stream":"a \\"quoted\\" stream","v":2}`));
    expect(next.digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('are stored as {v, d, p} in the text JSON.stringify gives, and read back whichever version they are in', () => {
    const link = chainLink('previous-digest', 's', 3, 'Moved', {});
    expect(linkMetadataJson(link)).toBe(JSON.stringify({ [CHAIN_KEY]: { v: 2, d: link.digest, p: 'previous-digest' } }));
    expect(linkOf(JSON.parse(linkMetadataJson(link)) as never)).toEqual(link);
    const v1 = chainLink(null, 's', 0, 'Opened', {}, 1);
    expect(linkMetadataJson(v1)).toBe(JSON.stringify({ [CHAIN_KEY]: storedLink(v1) }));
    expect(linkOf({ [CHAIN_KEY]: storedLink(v1) })).toEqual(v1);
    // A version-2 link without its predecessor member, or of an unknown version, is no link.
    expect(linkOf({ [CHAIN_KEY]: { v: 2, d: link.digest } })).toBeUndefined();
    expect(linkOf({ [CHAIN_KEY]: { v: 3, d: link.digest, p: null } })).toBeUndefined();
  });

  it('written from the JSON texts of their members are the digests of the rule, whatever those texts escape', () => {
    const stream = 'a "quoted" stream';
    const own = dataDigest('Opened', '{"n":1}');
    const first = b64url(`{"data_sha256":"${own}","previous":"read back \\"damaged\\"","revision":7,"stream":"a \\"quoted\\" stream","v":2}`);
    expect(linkDigestOfTexts(JSON.stringify('read back "damaged"'), JSON.stringify(stream), 7, `"${own}"`)).toBe(first);
    expect(linkDigestOfData('read back "damaged"', stream, 7, own)).toBe(first);
    expect(linkDigestOfTexts('null', '"s"', 0, `"${own}"`)).toBe(chainLink(null, 's', 0, 'Opened', { n: 1 }).digest);
    // A caller's data digest is linked as given, so one that needs an escape is escaped as canonical JSON does.
    const second = b64url(`{"data_sha256":"not \\"hex\\"","previous":"${first}","revision":8,"stream":"a \\"quoted\\" stream","v":2}`);
    expect(linkDigestOfData(first, stream, 8, 'not "hex"')).toBe(second);
  });
});
