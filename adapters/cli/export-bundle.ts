import { createPublicKey } from 'node:crypto';
import { writeBundle } from './bundle-write';
import { openSink } from './export-sink';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from './io';
import { readPrivateKey } from './signing-keys';
import { openWorkspace, type StoreFlags } from './workspace';

/** `raes-tools export --bundle`: the whole store as a signed bundle (docs/integrity.md, signed bundles). */

export interface BundleExportOptions extends StoreFlags {
  /** The private key file: --key, else RAES_SIGNING_KEY. */
  readonly key: string | undefined;
  readonly out: string;
  readonly progress: boolean;
}

export const runBundleExport = async (options: BundleExportOptions, io: CliIo, now: () => Date = () => new Date()): Promise<number> => {
  if (options.key === undefined) {
    io.stderr('raes-tools export --bundle: name the signing key with --key <file> or RAES_SIGNING_KEY (make one with `raes-tools keys generate`)\n');
    return EXIT_USAGE;
  }
  const key = readPrivateKey(options.key);
  if (!key.ok) {
    io.stderr(`raes-tools export --bundle: ${key.message}\n`);
    return EXIT_USAGE;
  }
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools export --bundle: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    const sinkOpened = openSink(options.out, io);
    if (!sinkOpened.ok) {
      io.stderr(`raes-tools export --bundle: ${sinkOpened.message}\n`);
      return EXIT_USAGE;
    }
    const sink = sinkOpened.sink;
    let written: Awaited<ReturnType<typeof writeBundle>>;
    try {
      written = await writeBundle(opened.workspace, key.value, createPublicKey(key.value), now().toISOString(), sink, options.progress ? (line) => io.stderr(`${line}\n`) : undefined);
      if (written.ok) await sink.finish();
      else await sink.abandon();
    } catch (error) {
      await sink.abandon();
      io.stderr(`raes-tools export --bundle: ${(error as Error).message}\n`);
      return EXIT_INVALID;
    }
    if (!written.ok) {
      io.stderr(`raes-tools export --bundle: ${written.message}\n`);
      return written.exit;
    }
    if (options.out !== '-') io.stderr(`export: a bundle of ${written.value.events} events in ${written.value.streams} streams, signed, in ${options.out}\n`);
    return EXIT_OK;
  } finally {
    await opened.workspace.close();
  }
};
