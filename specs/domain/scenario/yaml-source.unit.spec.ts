import { parseYamlSource } from '../../../domain/scenario/yaml-source';

const problems = (text: string) => {
  const parsed = parseYamlSource(text);
  return parsed.ok ? [] : parsed.diagnostics.map((d) => ({ code: d.code, address: d.address, message: d.message }));
};

describe('YAML source as sdl-yaml/v1 reads it', () => {
  it('accepts one document, with or without its "---" and "..." markers', () => {
    expect(problems('name: a\n')).toEqual([]);
    expect(problems('---\nname: a\n')).toEqual([]);
    expect(problems('name: a\n...\n')).toEqual([]);
    expect(problems('# a comment\n---\nname: a\n...\n# another\n')).toEqual([]);
  });

  it('refuses a second document where it starts, without naming the parser library', () => {
    const found = problems('name: a\n---\nname: b\n');
    expect(found).toEqual([
      {
        code: 'scenario.yaml-invalid',
        address: 'line 2, column 1',
        message: 'a second YAML document starts at line 2, column 1; a scenario is one document: remove everything from that "---" on, or put it in a file of its own.',
      },
    ]);
    expect(found[0]?.message).not.toMatch(/parseAllDocuments|::/);
  });

  it.each([['%YAML 1.1\n---\nname: a\nb: yes\n'], ['%YAML 1.2\n---\nname: a\n'], ['%TAG !e! tag:example.com,2000:\n---\nname: a\n']])(
    'refuses a directive, which could change how values resolve: %j',
    (text) => {
      expect(problems(text)).toEqual([
        expect.objectContaining({ code: 'scenario.yaml-invalid', address: 'line 1, column 1', message: expect.stringMatching(/YAML directive ".*" at line 1, column 1 is not sdl-yaml\/v1 authoring syntax: remove the line\./) }),
      ]);
    },
  );

  it('reports a syntax error with its position and a single colon', () => {
    expect(problems('name: [')).toEqual([
      expect.objectContaining({ code: 'scenario.yaml-invalid', address: 'line 1, column 8', message: expect.stringMatching(/ at line 1, column 8: fix the YAML syntax there\.$/) }),
    ]);
    expect(problems('name: [')[0]?.message).not.toMatch(/::/);
  });
});
