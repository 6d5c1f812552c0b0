import { Command } from 'commander';
import { exportHistoryAsOtlp, telemetryConfigOf } from '../../telemetry';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';

const NAME = 'raes-tools telemetry export';

/** The endpoint asked for, else OTEL_EXPORTER_OTLP_ENDPOINT; undefined when neither is a http(s) URL. */
const endpointOf = (asked: string | undefined, env: NodeJS.ProcessEnv): string | undefined => {
  const endpoint = asked ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && /^https?:\/\/\S+$/.test(endpoint.trim()) ? endpoint.trim() : undefined;
};

export const runTelemetryExport = async (options: StoreFlags & { readonly endpoint?: string }, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> => {
  const endpoint = endpointOf(options.endpoint, env);
  if (endpoint === undefined) {
    const got = options.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
    io.stderr(`${NAME}: expected an http(s) URL at --endpoint or OTEL_EXPORTER_OTLP_ENDPOINT, got ${got === undefined ? 'nothing' : `'${got.slice(0, 60)}'`}\n`);
    return EXIT_USAGE;
  }
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`${NAME}: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    const exported = await exportHistoryAsOtlp(opened.workspace.store, endpoint);
    if (exported.kind === 'storage_failure') {
      io.stderr(`${NAME}: the store could not be read: ${exported.reason}\n`);
      return EXIT_INVALID;
    }
    const config = telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    io.stderr(`${NAME}: sent ${exported.events} events as spans and metrics to ${config.kind === 'on' ? config.tracesUrl : endpoint}\n`);
    return EXIT_OK;
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
