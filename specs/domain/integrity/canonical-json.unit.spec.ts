import { canonicalJson } from '../../../domain/integrity/canonical-json';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units, as the RFC\'s sorting example does', () => {
    const value = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    const order = Object.keys(JSON.parse(canonicalJson(value)) as object);
    // JSON.parse puts the integer-like key first; read the order from the text instead.
    expect(order).toContain('1');
    const text = canonicalJson(value);
    const positions = ['\\r', '"1"', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((key) => text.indexOf(key));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(positions.every((position) => position >= 0)).toBe(true);
  });

  it('writes numbers in their shortest round-trip form and strings with the RFC\'s escapes, without whitespace', () => {
    expect(canonicalJson({ numbers: [333333333.33333329, 1e30, 4.5, 0.002, 1e-27, -0, 1e21, 1e-7], string: '\u20ac$\u000f\nA\'B"\\\\"/' })).toBe(
      '{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21,1e-7],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    expect(canonicalJson({ b: [true, false, null], a: { d: 1, c: {} } })).toBe('{"a":{"c":{},"d":1},"b":[true,false,null]}');
  });

  it('refuses a number JSON has no text for', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/no text for the number NaN/);
  });

  it('writes a value already in canonical order (JSON.parse of canonical text) as the same text, integer-like names included', () => {
    const value = { b: [{ y: 1, x: 2 }], a: { '10': 'ten', '9': 'nine' }, c: 'z' };
    const text = canonicalJson(value);
    expect(text).toBe('{"a":{"10":"ten","9":"nine"},"b":[{"x":2,"y":1}],"c":"z"}');
    // Parsed back, names are in sorted order except the integer-like ones, which JSON.parse puts in numeric order.
    expect(canonicalJson(JSON.parse(text) as never)).toBe(text);
    expect(canonicalJson(JSON.parse('{"a":1,"b":{"c":[1.5,"\\u0000"]}}') as never)).toBe('{"a":1,"b":{"c":[1.5,"\\u0000"]}}');
    expect(() => canonicalJson({ a: 1, b: [Number.POSITIVE_INFINITY] })).toThrow(/no text for the number Infinity/);
  });
});
