import { Command } from 'commander';
import { isLeft } from 'fp-ts/Either';
import { checkManifest, loadManifestDocument } from '../../../domain/manifest';
import { Diagnostic, hasErrors, loadScenario, type CompiledScenario } from '../../../domain/scenario';
import { readText } from '../../files/read-text';
import { table } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';

export interface ValidateOptions {
  readonly scenarioPath: string;
  readonly manifestPath: string | undefined;
  readonly json: boolean;
  /** Also print what the scenario affords: one row per compiled affordance binding. */
  readonly bindings?: boolean;
}

/** One compiled affordance binding as an author reads it. */
interface BindingRow {
  readonly participant_address: string;
  readonly tool_affordance_address: string;
  readonly tool_ref: string | null;
  readonly action_contract_address: string;
  readonly observation_boundary_addresses: readonly string[];
  readonly target_addresses: readonly string[];
}

const bindingRowsOf = (compiled: CompiledScenario): BindingRow[] => {
  const toolRefs = new Map(compiled.toolAffordances.map((affordance) => [affordance.address, affordance.toolRef ?? null]));
  return compiled.affordanceBindings.map((binding) => ({
    participant_address: binding.participant_address,
    tool_affordance_address: binding.tool_affordance_address,
    tool_ref: toolRefs.get(binding.tool_affordance_address) ?? null,
    action_contract_address: binding.action_contract_address,
    observation_boundary_addresses: binding.observation_boundary_addresses,
    target_addresses: binding.target_addresses,
  }));
};

const bindingsTable = (rows: readonly BindingRow[]): string =>
  rows.length === 0
    ? 'the scenario affords no tool actions\n'
    : table(
        ['participant', 'affordance', 'action', 'boundaries', 'targets', 'tool_ref'],
        rows.map((row) => [
          row.participant_address,
          row.tool_affordance_address,
          row.action_contract_address,
          row.observation_boundary_addresses.join(', '),
          row.target_addresses.join(', ') || '-',
          row.tool_ref ?? '-',
        ]),
      );

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

  const bindings = options.bindings === true && scenario.ok ? bindingRowsOf(scenario.compiled) : undefined;
  if (options.json) {
    io.stdout(`${JSON.stringify({ valid, diagnostics, summary: valid ? summary : undefined, ...(bindings === undefined ? {} : { bindings }) }, null, 2)}\n`);
  } else {
    if (bindings !== undefined) io.stdout(bindingsTable(bindings));
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
    .argument('<scenario>', 'scenario file (YAML, RAES 3.3 SDL)')
    .option('-m, --manifest <manifest>', 'backend manifest file (JSON) to check against the scenario')
    .option('--json', 'print the result as JSON')
    .option('--bindings', 'also print the compiled affordance bindings: which participant may use which tool action, against which boundaries and targets')
    .addHelpText('after', '\nExit codes: 0 valid, 1 invalid, 2 usage error (bad arguments, unreadable file).')
    .action(async (scenarioPath: string, opts: { manifest?: string; json?: boolean; bindings?: boolean }) => {
      setExit(await runValidate({ scenarioPath, manifestPath: opts.manifest, json: opts.json === true, bindings: opts.bindings === true }, io));
    });
};
