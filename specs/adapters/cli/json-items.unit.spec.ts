import fc from 'fast-check';
import { JsonFramingError, JsonItemSplitter, type JsonItem } from '../../../adapters/cli/json-items';

/** Feeds `text`'s bytes cut at `cuts` and returns each item with its bytes parsed. */
const split = (text: string, cuts: readonly number[]): { readonly container: string | undefined; readonly items: readonly { name: string | undefined; value: unknown }[] } => {
  const bytes = Buffer.from(text, 'utf8');
  const splitter = new JsonItemSplitter(0);
  const found: JsonItem[] = [];
  let from = 0;
  for (const cut of [...cuts.map((at) => at % (bytes.length + 1))].sort((a, b) => a - b).concat(bytes.length)) {
    found.push(...splitter.feed(bytes.subarray(from, cut)));
    from = cut;
  }
  splitter.finish();
  return { container: splitter.container, items: found.map((item) => ({ name: item.name, value: JSON.parse(bytes.subarray(item.start, item.end).toString('utf8')) })) };
};

const framingOf = (text: string): string => {
  try {
    split(text, []);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonFramingError);
    return (error as Error).message;
  }
  throw new Error(`${text} was accepted`);
};

/** Strings with what the framing must see through: quotes, backslashes, brackets, commas, non-ASCII. */
const trickyString = fc.string({ unit: fc.constantFrom('a', '"', '\\', '[', ']', '{', '}', ',', ':', ' ', 'é', '😀', '\n') });
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, trickyString, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
})).value;

describe('JsonItemSplitter', () => {
  it('gives an array\'s elements and an object\'s members as JSON.parse reads them, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 6 }), fc.dictionary(trickyString, json, { maxKeys: 6 }), fc.constantFrom(undefined, 1, 2), fc.array(fc.nat(), { maxLength: 8 }), (array, object, indent, cuts) => {
        const elements = split(JSON.stringify(array, null, indent), cuts);
        expect(elements.container).toBe('array');
        expect(elements.items.map((item) => item.value)).toEqual(JSON.parse(JSON.stringify(array)));
        expect(elements.items.every((item) => item.name === undefined)).toBe(true);
        const members = split(` ${JSON.stringify(object, null, indent)}\n`, cuts);
        expect(members.container).toBe('object');
        expect(Object.fromEntries(members.items.map((item) => [item.name, item.value]))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a member named twice twice, for the reader to refuse', () => {
    expect(split('{"a":1,"a":2}', [3]).items).toEqual([
      { name: 'a', value: 1 },
      { name: 'a', value: 2 },
    ]);
  });

  it('refuses framing that is not one array or object', () => {
    expect(framingOf('')).toContain('no JSON array or object');
    expect(framingOf('"text"')).toContain('array or object was expected');
    expect(framingOf('[1,2')).toContain('does not end');
    expect(framingOf('[1,]')).toContain('a value was expected');
    expect(framingOf('[,1]')).toContain('a value was expected');
    expect(framingOf('{"a" 1}')).toContain('a colon was expected');
    expect(framingOf('{1:2}')).toContain('a member name was expected');
    expect(framingOf('[1}')).toContain('wrong bracket');
    expect(framingOf('[1] [2]')).toContain('text follows the end');
  });
});
