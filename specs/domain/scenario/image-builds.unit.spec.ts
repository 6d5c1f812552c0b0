import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * A source's build (a container image's build provenance) as RAES 3.3's models type and check it
 * (raes/image_provenance.py: ContainerImageBuildProvenance and its parts), on a node's source. Every
 * refusal and acceptance below was checked against RAES's own models.
 */

const AT = 'nodes.red-workbench.source.build';
const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const withBuild = (build: Yaml): string => portalProbeWith((doc) => (doc.nodes['red-workbench'].source = { name: 'portal', version: '1', build }));
const errorsOf = (build: Yaml) => errorsOfText(withBuild(build));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);
const invalid = (message: string) => ({ code: 'scenario.source-invalid', address: AT, message });

describe("a build's fields", () => {
  it('takes every part RAES has, read as RAES reads it, and null for none', () => {
    expect(
      errorsOf({
        base_image: 'ubuntu:22.04',
        instructions: [{ instruction: 'FROM', arguments: 'ubuntu:22.04' }, { instruction: 'healthCheck' }],
        layers: [
          { digest: 'sha256:x', size: '12', empty: 'Yes' },
          { size: null, empty: null },
        ],
        build_args: [{ name: 'VERSION', value: '1', value_classification: 'Secret-Fixture' }],
        copied_sources: [{ source_path: 'app/', destination_path: '/opt/app' }],
        config: { entrypoint: '/bin/sh', command: null, working_directory: '', labels: { Maintainer: 'x' }, default_environment: [{ name: 'PATH', value: '/bin' }] },
        source_inputs: [{ identifier: 'app', checksum: 'abc', checksum_algorithm: 'sha256' }],
        attestation: { status: 'Absent', verification: 'failed', attestation_type: 'in-toto' },
      }),
    ).toEqual([]);
    expect(errorsOf(null)).toEqual([]);
    expect(errorsOf({ build_args: [{ name: 'TOKEN', value_classification: 'redacted' }] })).toEqual([]);
  });

  it('refuses an unknown instruction, classification or attestation status, and a non-text argument', () => {
    expect(errorsOf({ instructions: [{ instruction: 'frob' }] })).toEqual([shape('instructions.0.instruction', 'expected one of from, arg, env')]);
    expect(errorsOf({ instructions: [{ instruction: 5 }] })).toEqual([shape('instructions.0.instruction')]);
    expect(errorsOf({ instructions: [{ instruction: 'run', arguments: [1] }] })).toEqual([shape('instructions.0.arguments', 'expected a list of strings, or one string')]);
    expect(errorsOf({ build_args: [{ name: 'A', value_classification: 'secret' }] })).toEqual([shape('build_args.0.value_classification', 'expected one of plain, redacted')]);
    expect(errorsOf({ attestation: { status: 'maybe' } })).toEqual([shape('attestation.status', 'expected one of present, absent, unknown')]);
  });

  it("reads a layer's size as a whole number from 0 and empty as RAES's true/false words", () => {
    for (const size of [-1, ' -1 ', true]) expect(errorsOf({ layers: [{ size }] })).toEqual([shape('layers.0.size', 'expected an integer >= 0')]);
    for (const empty of ['maybe', 1]) expect(errorsOf({ layers: [{ empty }] })).toEqual([shape('layers.0.empty', 'expected true or false')]);
    const text = withBuild({ layers: [{ size: 7654321 }] });
    expect(errorsOfText(text.replace('size: 7654321\n', 'size: 2.0\n'))).toEqual([
      shape('layers.0.size', `expected a whole number at ${AT}.layers.0.size, got 2.0, which RAES reads as a float: write it without a fraction or exponent.`),
    ]);
  });

  it('requires non-blank names without "=", non-blank source paths and absolute destinations', () => {
    for (const name of [' ', 'A=B']) expect(errorsOf({ build_args: [{ name }] })).toEqual([shape('build_args.0.name', 'expected a non-blank name without "="')]);
    expect(errorsOf({ copied_sources: [{ source_path: '\u0085', destination_path: '/opt' }] })).toEqual([shape('copied_sources.0.source_path', 'expected a non-blank string')]);
    expect(errorsOf({ copied_sources: [{ source_path: 'a', destination_path: 'opt' }] })).toEqual([shape('copied_sources.0.destination_path', 'expected an absolute path')]);
    expect(errorsOf({ config: { working_directory: 'opt' } })).toEqual([shape('config.working_directory', 'expected an absolute path or ""')]);
    expect(errorsOf({ source_inputs: [{ identifier: 'a', destination_path: 'x' }] })).toEqual([shape('source_inputs.0.destination_path', 'expected an absolute path or ""')]);
  });

  it('refuses a label that is not text and a key RAES does not have', () => {
    expect(errorsOf({ config: { labels: { a: 1 } } })).toEqual([shape('config.labels.a', 'expected a string')]);
    expect(errorsOf({ extra: 1 })).toEqual([{ code: 'scenario.key-unknown', address: `${AT}.extra`, message: expect.stringContaining('unknown key "extra"') }]);
  });
});

describe('how a build holds together', () => {
  it('withholds the value of a redacted or operator-secret build argument', () => {
    expect(errorsOf({ build_args: [{ name: 'TOKEN', value: 'x', value_classification: 'Operator-Secret' }] })).toEqual([
      invalid(`build argument "TOKEN" is classified operator_secret, so its value is withheld: remove ${AT}.build_args.0.value.`),
    ]);
  });

  it('declares each build argument, image environment variable and source input once', () => {
    expect(errorsOf({ build_args: [{ name: 'A' }, { name: 'A' }] })).toEqual([invalid(`build argument "A" is declared twice in ${AT}.build_args: declare it once.`)]);
    expect(errorsOf({ config: { default_environment: [{ name: 'A' }, { name: 'A' }] } })).toEqual([
      invalid(`image environment variable "A" is declared twice in ${AT}.config.default_environment: declare it once.`),
    ]);
    expect(errorsOf({ source_inputs: [{ identifier: 'a' }, { identifier: 'a' }] })).toEqual([invalid(`source input "a" is declared twice in ${AT}.source_inputs: declare it once.`)]);
  });

  it('pairs a checksum with its algorithm', () => {
    expect(errorsOf({ source_inputs: [{ identifier: 'a', checksum: 'x' }] })).toEqual([
      invalid(`source input "a" gives a checksum without its algorithm: set ${AT}.source_inputs.0.checksum_algorithm.`),
    ]);
    expect(errorsOf({ source_inputs: [{ identifier: 'a', checksum_algorithm: 'sha256' }] })).toEqual([
      invalid(`source input "a" gives a checksum_algorithm without a checksum: set ${AT}.source_inputs.0.checksum.`),
    ]);
  });

  it('never verifies an absent attestation', () => {
    expect(errorsOf({ attestation: { status: 'absent', verification: 'Verified' } })).toEqual([
      invalid(`an absent attestation cannot have been verified: set ${AT}.attestation.verification to another result, or its status to present.`),
    ]);
  });
});
