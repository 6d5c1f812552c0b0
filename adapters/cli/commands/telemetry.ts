import { Command } from 'commander';
import { exportHistoryAsOtlp, telemetryConfigOf, type HistoryScope } from '../../telemetry';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';

const NAME = 'raes-tools telemetry export';

export interface TelemetryExportOptions extends StoreFlags, HistoryScope {
  readonly endpoint?: string;
}

const scopeText = (scope: HistoryScope): string =>
  [scope.episode === undefined ? '' : `episode ${scope.episode}`, scope.participant === undefined ? '' : `participant ${scope.participant}`].filter((part) => part !== '').join(' and ');

/** The endpoint asked for, else OTEL_EXPORTER_OTLP_ENDPOINT; undefined when neither is a http(s) URL. */
const endpointOf = (asked: string | undefined, env: NodeJS.ProcessEnv): string | undefined => {
  const endpoint = asked ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && /^https?:\/\/\S+$/.test(endpoint.trim()) ? endpoint.trim() : undefined;
};

/** `name` is the command as the user typed it (`telemetry export` or `export --format otlp`). */
export const runTelemetryExport = async (options: TelemetryExportOptions, io: CliIo, env: NodeJS.ProcessEnv = process.env, name = NAME): Promise<number> => {
  const endpoint = endpointOf(options.endpoint, env);
  if (endpoint === undefined) {
    const got = options.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
    io.stderr(`${name}: expected an http(s) URL at --endpoint or OTEL_EXPORTER_OTLP_ENDPOINT, got ${got === undefined ? 'nothing' : `'${got.slice(0, 60)}'`}\n`);
    return EXIT_USAGE;
  }
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`${name}: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    const scope: HistoryScope = {
      ...(options.episode === undefined ? {} : { episode: options.episode }),
      ...(options.participant === undefined ? {} : { participant: options.participant }),
    };
    const exported = await exportHistoryAsOtlp(opened.workspace.store, endpoint, scope);
    if (exported.kind === 'storage_failure') {
      io.stderr(`${name}: the store could not be read: ${exported.reason}\n`);
      return EXIT_INVALID;
    }
    const narrowed = scopeText(scope);
    if (narrowed !== '' && exported.invocations === 0) {
      io.stderr(`${name}: the store holds no closed invocation of ${narrowed}; \`raes-tools audit\` lists what it holds\n`);
      return EXIT_INVALID;
    }
    const config = telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    io.stderr(
      `${name}: sent ${exported.invocations} invocation${exported.invocations === 1 ? '' : 's'} (${exported.events} events read${narrowed === '' ? '' : `, of ${narrowed}`}) as spans and metrics to ${config.kind === 'on' ? config.tracesUrl : endpoint}\n`,
    );
    return EXIT_OK;
  } catch (error) {
    // The endpoint refused, failed or did not answer: the history is as it was, nothing was lost.
    io.stderr(`${name}: the OpenTelemetry endpoint ${endpoint} did not take the export (${error instanceof Error ? error.message : String(error)}); check that a collector listens there, then export again\n`);
    return EXIT_INVALID;
  } finally {
    await opened.workspace.close();
  }
};

export const registerTelemetry = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const telemetry = program.command('telemetry').description('OpenTelemetry: the stored history as GenAI spans and metrics (docs/observability.md)');
  const exportCommand = telemetry
    .command('export')
    .description('send the stored history to an OTLP/HTTP endpoint as invoke_agent and execute_tool spans, with metrics')
    .option('--endpoint <url>', 'OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT (default: that variable)');
  storeOptions(exportCommand)
    .addHelpText('after', '\nNo tool argument, result or secret is ever sent. Exit codes: 0 sent, 1 the store failed, 2 usage error.')
    .action(async (opts: { endpoint?: string; store?: string; dataDir?: string }) => {
      setExit(await runTelemetryExport({ ...storeFlagsOf(opts), ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }) }, io));
    });
};
