import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * A node's and content's source as RAES 3.3 reads it (raes/_source.py Source; raes/parser.py expands a
 * text to a source of that name). Every refusal and acceptance below was checked against RAES.
 */

const errorsOf = (edit: (doc: Yaml) => void) =>
  errorDiagnostics(portalProbeWith(edit));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', address, message);
const WHERE = [
  ['a node', 'nodes.red-workbench', (doc: Yaml): Yaml => doc.nodes['red-workbench']],
  ['content', 'content.participant-observation', (doc: Yaml): Yaml => doc.content['participant-observation']],
] as const;

describe.each(WHERE)("%s's source", (_, at, owner) => {
  it('takes a name, a mapping with a name and a version, or null', () => {
    for (const source of ['ubuntu-22.04', '', { name: 'ubuntu', version: '22.04' }, { name: '' }, { name: 'x', build: null, artifact_requirement: null }, null]) {
      expect(errorsOf((doc) => (owner(doc).source = source))).toEqual([]);
    }
  });

  it('refuses a number or a list', () => {
    for (const source of [5, ['a']]) {
      expect(errorsOf((doc) => (owner(doc).source = source))).toEqual([shape(`${at}.source`, `expected a name, or a mapping (Source) with a name and a version at ${at}.source`)]);
    }
  });

  it('requires a text name, a text version, and no other key', () => {
    expect(errorsOf((doc) => (owner(doc).source = { version: '1' }))).toEqual([shape(`${at}.source.name`, 'missing required field')]);
    expect(errorsOf((doc) => (owner(doc).source = { name: 1 }))).toEqual([shape(`${at}.source.name`, 'expected a string')]);
    expect(errorsOf((doc) => (owner(doc).source = { name: 'a', version: 1 }))).toEqual([shape(`${at}.source.version`, 'expected a string')]);
    expect(errorsOf((doc) => (owner(doc).source = { name: 'a', x: 1 }))).toEqual([
      { code: 'scenario.key-unknown', address: `${at}.source.x`, message: expect.stringContaining('unknown key "x"') },
    ]);
  });
});

describe('dataset content with a source', () => {
  it('needs no items', () => {
    expect(
      errorsOf((doc) => {
        doc.content['participant-observation'].source = 'dataset-pkg';
        delete doc.content['participant-observation'].items;
      }),
    ).toEqual([]);
  });
});
