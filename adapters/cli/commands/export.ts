import { Command } from 'commander';
import { runBundleExport } from '../export-bundle';
import { writeExport } from '../export-history';
import { EXPORT_FORMATS, JSON_SECTIONS, type ExportFormat } from '../export-layout';
import { openSink } from '../export-sink';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';
import { chooseEpisode, EPISODE_HELP } from '../episode-choice';
import { runTelemetryExport } from './telemetry';

export interface ExportOptions extends StoreFlags {
  readonly participant?: string;
  readonly episode?: string;
  readonly format: string;
  readonly out: string;
  readonly progress: boolean;
}

const isFormat = (format: string): format is ExportFormat => (EXPORT_FORMATS as readonly string[]).includes(format);

export const runExport = async (options: ExportOptions, io: CliIo, now: () => Date = () => new Date()): Promise<number> => {
  const format = options.format;
  if (!isFormat(format)) {
    io.stderr(`raes-tools export: --format ${format} is not one of ${EXPORT_FORMATS.join(', ')}, otlp (json: one object; jsonl: one document a line; otlp: spans and metrics sent to an endpoint)\n`);
    return EXIT_USAGE;
  }
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools export: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  const workspace = opened.workspace;
  try {
    // Before the sink: a usage error leaves no file behind.
    const chosen = await chooseEpisode(workspace, options.episode);
    if (!chosen.ok) {
      io.stderr(`raes-tools export: ${chosen.message}\n`);
      return chosen.exit;
    }
    const episode = chosen.value;
    const sinkOpened = openSink(options.out, io);
    if (!sinkOpened.ok) {
      io.stderr(`raes-tools export: ${sinkOpened.message}\n`);
      return EXIT_USAGE;
    }
    const sink = sinkOpened.sink;
    let written: Awaited<ReturnType<typeof writeExport>>;
    try {
      written = await writeExport(
        workspace,
        {
          format,
          generatedAt: now().toISOString(),
          ...(options.participant === undefined ? {} : { participant: options.participant }),
          ...(episode === undefined ? {} : { episode }),
          ...(options.progress ? { onProgress: (line: string) => io.stderr(`${line}\n`) } : {}),
        },
        sink,
      );
      if (written.ok) await sink.finish();
      else await sink.abandon();
    } catch (error) {
      await sink.abandon();
      io.stderr(`raes-tools export: ${(error as Error).message}\n`);
      return EXIT_INVALID;
    }
    if (!written.ok) {
      io.stderr(`raes-tools export: ${written.message}\n`);
      return written.exit;
    }
    if (options.progress) {
      const counts = written.value;
      io.stderr(
        `export: ${counts.behavior_history_events} behavior history events, ${counts.participant_history_views} participant history views, ${counts.operation_statuses} operation statuses${options.out === '-' ? '' : ` in ${options.out}`}\n`,
      );
    }
    return EXIT_OK;
  } finally {
    await workspace.close();
  }
};

const HELP = `
Writes, in RAES's wire shapes: the behavior history event stream (participant-behavior-history-event-stream-v1;
tool-action events add invocation_tool_context, schemas/invocation-behavior-history-event-stream-v1.json),
one participant history view per participant and episode (participant-history-view-v1), and the operation
statuses (operation-status-v1, extended by schemas/invocation-operation-status-v1.json).
  json   one object: ${Object.values(JSON_SECTIONS).map((key) => `"${key}"`).join(', ')}, each a list
  jsonl  one document a line: {"kind": "behavior_history_event" | "participant_history_view" | "operation_status", "document": ...}
--bundle writes instead the whole store as one signed bundle (the json export, the stored events with
their chain links, the chain heads, an Ed25519 signature; docs/integrity.md), checked by \`raes-tools verify\`.
  otlp   the closed invocations as OpenTelemetry spans and metrics, sent to --endpoint (or
         OTEL_EXPORTER_OTLP_ENDPOINT) over OTLP/HTTP, as \`telemetry export\` does (docs/observability.md)
Only closed invocations have history; a file is written as <file>.partial and renamed when complete.
json and jsonl export one episode: ${EPISODE_HELP} --bundle holds every episode; otlp, without
--episode, every episode.
Exit codes: 0 exported, 1 unknown participant or episode (or the store failed), 2 usage error.`;

export const registerExport = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('export')
    .description('write the stored history as RAES documents (event stream, participant history views, operation statuses)')
    .option('--participant <address>', 'only this participant (e.g. participant.behavior.participant-agent)')
    .option('--episode <id>', 'the episode to export (default: the only one the store holds)')
    .option('--format <format>', 'json, jsonl, or otlp (spans and metrics sent to an OTLP/HTTP endpoint)', 'json')
    .option('--endpoint <url>', 'with --format otlp: the OTLP/HTTP base URL (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--out <file>', 'the file to write, or - for stdout', '-')
    .option('--progress', 'report progress on stderr (the default when stderr is a terminal)')
    .option('--bundle', 'write a signed bundle of the whole store (needs --key or RAES_SIGNING_KEY)')
    .option('--key <file>', 'the Ed25519 private key that signs the bundle (from `raes-tools keys generate`)');
  storeOptions(command)
    .addHelpText('after', HELP)
    .action(async (opts: { participant?: string; episode?: string; format: string; out: string; endpoint?: string; progress?: boolean; bundle?: boolean; key?: string; store?: string; dataDir?: string; postgresUrl?: string }) => {
      if (opts.out.trim() === '') {
        io.stderr('raes-tools export: --out is empty: name the file to write (`--out -` is stdout)\n');
        setExit(EXIT_USAGE);
        return;
      }
      if (opts.key !== undefined && opts.bundle !== true) {
        io.stderr('raes-tools export: --key signs a bundle; add --bundle to write a signed bundle, or drop --key for an unsigned export\n');
        setExit(EXIT_USAGE);
        return;
      }
      if (opts.endpoint !== undefined && opts.format !== 'otlp') {
        io.stderr('raes-tools export: --endpoint is where --format otlp sends; add --format otlp, or drop --endpoint to write a file\n');
        setExit(EXIT_USAGE);
        return;
      }
      if (opts.format === 'otlp' && opts.bundle !== true) {
        if (opts.out !== '-') {
          io.stderr('raes-tools export --format otlp: sends to an endpoint (--endpoint or OTEL_EXPORTER_OTLP_ENDPOINT), not to a file; drop --out\n');
          setExit(EXIT_USAGE);
          return;
        }
        setExit(
          await runTelemetryExport(
            {
              ...storeFlagsOf(opts),
              ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
              ...(opts.participant === undefined ? {} : { participant: opts.participant }),
              ...(opts.episode === undefined ? {} : { episode: opts.episode }),
            },
            io,
            process.env,
            'raes-tools export --format otlp',
          ),
        );
        return;
      }
      if (opts.bundle === true) {
        if (opts.participant !== undefined || opts.episode !== undefined || opts.format !== 'json') {
          io.stderr('raes-tools export --bundle: a bundle holds the whole store as one json document (its chains cover every stream); drop --participant, --episode and --format\n');
          setExit(EXIT_USAGE);
          return;
        }
        setExit(await runBundleExport({ ...storeFlagsOf(opts), key: opts.key ?? process.env.RAES_SIGNING_KEY, out: opts.out, progress: opts.progress === true || process.stderr.isTTY === true }, io));
        return;
      }
      setExit(
        await runExport(
          {
            ...storeFlagsOf(opts),
            format: opts.format,
            out: opts.out,
            progress: opts.progress === true || process.stderr.isTTY === true,
            ...(opts.participant === undefined ? {} : { participant: opts.participant }),
            ...(opts.episode === undefined ? {} : { episode: opts.episode }),
          },
          io,
        ),
      );
    });
};
