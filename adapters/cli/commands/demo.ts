import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { formatAudit } from './audit';
import { executeRun, formatRunSummary } from './run';

/** The demo's gateway config loads the MCP example only when the demo runs, not at every command's start. */
const demoGatewayConfig = (): import('../../mcp/gateway').GatewayConfig =>
  (require('../../../examples/gateway/demo-config') as typeof import('../../../examples/gateway/demo-config')).demoGatewayConfig();

const EXAMPLES = join(__dirname, '..', '..', '..', 'examples');
export const DEMO_SCENARIO = join(EXAMPLES, 'portal-probe.scenario.yaml');
export const DEMO_MANIFEST = join(EXAMPLES, 'portal-probe.manifest.json');

const INTRO = `raes-tools demo: the bundled portal-probe example, end to end.

An agent (participant.behavior.participant-agent) probes a customer portal running on 127.0.0.1.
The policy lets it act at ticks 0, 2 and 4 of a shared logical clock: each time, the engine starts
the agent (examples/gateway/agent.mjs, a plain MCP client in its own process) with an MCP
configuration pointing at the engine's MCP gateway for that invocation. Every tool call goes on to
the real MCP server (a child process on stdio) only after the engine has admitted it as a tool
action of its own and recorded its dispatch; its outcome is recorded too. Tool arguments and results
are never stored.

  attempt 1: a login probe that succeeds, then a tool nobody mapped (refused before it runs)
  attempt 2: a probe with a wrong password (the tool ran: failed), then a good one
  attempt 3: a probe that outlives its 1 s timeout: its effects are unknown, so the action
             settles indeterminate and the participant's scheduler stops until an operator acts
`;

const outro = (dataDir: string, unresolved: readonly string[]): string => {
  let text = `\nEverything above is stored in ${dataDir} (SQLite). Explore it:\n`;
  text += `  npm run raes-tools -- audit --data-dir ${dataDir}\n`;
  text += `  npm run raes-tools -- scheduler list --data-dir ${dataDir}\n`;
  for (const id of unresolved) {
    text += `  npm run raes-tools -- operations get '${id}' --data-dir ${dataDir}\n`;
    text += `  npm run raes-tools -- resolve '${id}' --effect happened --evidence portal-access-log --data-dir ${dataDir}\n`;
  }
  text += `  npm run raes-tools -- scheduler restart participant.behavior.participant-agent --data-dir ${dataDir}\n`;
  text += '  npm run raes-tools -- --help\n';
  return text;
};

/** Sound only when nothing failed to be stored: an audit of what did get stored says nothing of what did not. */
export const demoExitCode = (storageFailures: readonly string[], auditSound: boolean): number =>
  storageFailures.length === 0 && auditSound ? EXIT_OK : EXIT_INVALID;

/** The bundled example in a clean `<data-dir>/demo` folder (emptied first), then its audit. */
export const runDemo = async (options: { readonly dataDir?: string }, io: CliIo): Promise<number> => {
  const dataDir = join(options.dataDir ?? 'esdata', 'demo');
  try {
    rmSync(dataDir, { recursive: true, force: true });
  } catch (error) {
    io.stderr(`raes-tools demo: cannot empty ${dataDir}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  io.stdout(`${INTRO}\nRunning on a fresh SQLite store in ${dataDir} (emptied at each demo run).\n\n`);
  const run = await executeRun(
    {
      scenarioPath: DEMO_SCENARIO,
      manifestPath: DEMO_MANIFEST,
      harness: { kind: 'gateway', configPath: 'examples/gateway', config: demoGatewayConfig() },
      json: false,
      store: 'sqlite',
      dataDir,
      audit: true,
    },
    (line) => io.stdout(`${line}\n`),
  );
  if (!run.ok) {
    io.stderr(`raes-tools demo: ${run.message}\n`);
    return run.exit;
  }
  const { audit, ...summary } = run.value;
  io.stdout(formatRunSummary(summary));
  if (audit === undefined) return EXIT_INVALID;
  io.stdout(
    '\n==== Audit ====\nThe participant history, replayed from the stored events. Each tool action is a participant action of\n' +
      'its own: admitted, then dispatched, then settled completed (the tool answered), withheld (it never ran)\n' +
      'or indeterminate (its effects are unknown). Times are UTC.\n\n',
  );
  io.stdout(formatAudit(audit));
  const unresolved = audit.invocations.flatMap((invocation) =>
    invocation.tool_actions.filter((action) => action.settlement === 'indeterminate' && action.resolution === null).map((action) => action.action_instance_id),
  );
  io.stdout(outro(dataDir, unresolved));
  return demoExitCode(summary.storage_failures, audit.sound);
};

export const registerDemo = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  program
    .command('demo')
    .description('run the bundled example end to end (an MCP agent process through the MCP gateway, MCP server on stdio, customer portal on 127.0.0.1) and print the audit')
    .option('--data-dir <dir>', 'the demo uses <dir>/demo, emptied first (default esdata)')
    .addHelpText('after', '\nThis is what `npm start` runs. Exit codes: 0 everything was stored and the audit is sound, 1 findings or a failure (a storage failure too), 2 usage error.')
    .action(async (opts: { dataDir?: string }) => {
      setExit(await runDemo(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }, io));
    });
};
