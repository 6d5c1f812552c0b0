import { Command } from 'commander';
import { isLeft } from 'fp-ts/Either';
import { checkManifest, loadManifestDocument } from '../../../domain/manifest';
import { Diagnostic, hasErrors, loadScenario } from '../../../domain/scenario';
import { readText } from '../../files/read-text';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';

export interface ValidateOptions {
  readonly scenarioPath: string;
  readonly manifestPath: string | undefined;
  readonly json: boolean;
}

interface Summary {
  readonly scenario: string;
  readonly participants: number;
  readonly policies: number;
  readonly affordance_bindings: number;
  readonly offers: number;
}

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

const formatDiagnostic = (d: Diagnostic): string => `${d.severity}: ${d.code} at ${d.address}\n  ${d.message}`;

/** Validates a scenario (and a manifest against it); returns the exit code. */
export const runValidate = async (options: ValidateOptions, io: CliIo): Promise<number> => {
  const scenarioText = await readText(options.scenarioPath, 'scenario file');
  if (!scenarioText.ok) {
    io.stderr(`raes-tools validate: ${scenarioText.message}\n`);
    return EXIT_USAGE;
  }
  let manifestText: string | undefined;
  if (options.manifestPath !== undefined) {
    const read = await readText(options.manifestPath, 'manifest file');
    if (!read.ok) {
      io.stderr(`raes-tools validate: ${read.message}\n`);
      return EXIT_USAGE;
    }
    manifestText = read.text;
  }

  const diagnostics: Diagnostic[] = [];
  const scenario = loadScenario(scenarioText.text);
  diagnostics.push(...scenario.diagnostics);
  let offers = 0;
  if (manifestText !== undefined) {
    const manifest = loadManifestDocument(manifestText);
    if (isLeft(manifest)) {
      diagnostics.push(...manifest.left);
    } else {
      offers = (manifest.right.participant_runtime.execution_bindings ?? []).length;
      if (scenario.ok) diagnostics.push(...checkManifest(manifest.right, scenario.compiled));
    }
  }

  const valid = scenario.ok && !hasErrors(diagnostics);
  const summary: Summary | undefined = scenario.ok
    ? {
        scenario: scenario.compiled.name,
        participants: scenario.compiled.participants.length,
        policies: scenario.compiled.policies.length,
        affordance_bindings: scenario.compiled.affordanceBindings.length,
        offers,
      }
    : undefined;

  if (options.json) {
    io.stdout(`${JSON.stringify({ valid, diagnostics, summary: valid ? summary : undefined }, null, 2)}\n`);
  } else {
    for (const d of diagnostics) io.stdout(`${formatDiagnostic(d)}\n`);
    if (valid && summary !== undefined) {
      io.stdout(
        `valid: ${summary.scenario}: ${plural(summary.participants, 'participant')}, ${plural(summary.policies, 'policy', 'policies')}, ${plural(summary.affordance_bindings, 'affordance binding')}, ${plural(summary.offers, 'offer')}\n`,
      );
    } else {
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      io.stdout(`invalid: ${plural(errors, 'error')}, ${plural(diagnostics.length - errors, 'warning')}\n`);
    }
  }
  return valid ? EXIT_OK : EXIT_INVALID;
};

export const registerValidate = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  program
    .command('validate')
    .description('check a scenario (and optionally a backend manifest against it) and print its diagnostics')
    .argument('<scenario>', 'scenario file (YAML, RAES SDL subset)')
    .option('-m, --manifest <manifest>', 'backend manifest file (JSON) to check against the scenario')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExit codes: 0 valid, 1 invalid, 2 usage error (bad arguments, unreadable file).')
    .action(async (scenarioPath: string, opts: { manifest?: string; json?: boolean }) => {
      setExit(await runValidate({ scenarioPath, manifestPath: opts.manifest, json: opts.json === true }, io));
    });
};
