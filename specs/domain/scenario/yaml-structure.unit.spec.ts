import { parseDocument, LineCounter } from 'yaml';
import { checkYamlStructure } from '../../../domain/scenario/yaml-structure';

const structureOf = (text: string) => {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: false, lineCounter });
  return checkYamlStructure(document, lineCounter);
};
const messages = (text: string) => structureOf(text).problems.map((d) => `${d.code} at ${d.address}: ${d.message}`);

describe('the YAML RAES refuses before it reads a section', () => {
  it.each([
    ['a: !!int "3"\n', '!!int'],
    ['a: !!str 3\n', '!!str'],
    ['a: !custom x\n', '!custom'],
    ['a: !!seq [1]\n', '!!seq'],
    ['? !!str k\n: v\n', '!!str'],
  ])('refuses the explicit tag in %j', (text, tag) => {
    expect(messages(text)).toEqual([expect.stringMatching(new RegExp(`^scenario\\.yaml-invalid at line \\d+, column \\d+: the explicit YAML tag ${tag} at .* is not sdl-yaml/v1 authoring syntax`))]);
  });

  it.each([['1: a\n', '"1"'], ['true: a\n', '"true"'], ['null: a\n', '"null"'], ['~: a\n', '"~"'], ['[a]: b\n', 'that is a collection']])(
    'refuses the key of %j, which is not read as a string',
    (text, written) => {
      expect(messages(text)).toEqual([expect.stringContaining(`the mapping key ${written} at line 1, column 1 is not read as a string, as RAES SDL requires of every key: quote it`)]);
    },
  );

  it('accepts quoted keys that look like other values', () => {
    expect(messages('"1": a\n\'true\': b\n')).toEqual([]);
  });

  it.each([['a: .inf\n'], ['a: -.inf\n'], ['a: .nan\n'], ['a: [1e400]\n']])('refuses the non-finite number in %j', (text) => {
    expect(messages(text)).toEqual([expect.stringMatching(/^scenario\.yaml-invalid at line 1, column \d+: the number \S+ at line 1, column \d+ is not finite .*: write a finite number\.$/)]);
  });

  it('keeps how numbers were written where their value reads differently', () => {
    const { problems, authoredNumbers } = structureOf('a:\n  b: 9007199254740993\n  c: [1.0, 0x10, 7, 1e+300]\n');
    expect(problems).toEqual([]);
    expect([...authoredNumbers.entries()].sort()).toEqual([
      ['a.b', '9007199254740993'],
      ['a.c.0', '1.0'],
      ['a.c.1', '0x10'],
      ['a.c.3', '1e+300'],
    ]);
  });
});
