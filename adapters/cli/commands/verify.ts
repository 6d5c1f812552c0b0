import { closeSync, fstatSync, openSync } from 'node:fs';
import { Command } from 'commander';
import { verifyBundle } from '../bundle-verify';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { readPublicKey } from '../signing-keys';

const HELP = `
Checks a bundle written by \`raes-tools export --bundle\`, offline and with no store: every stream's hash
chain and the chain heads, the content digest, the Ed25519 signature against --public-key, and the
history against RAES's schemas and the project's extensions (docs/integrity.md, signed bundles).
Exit codes: 0 the bundle is sound, 1 a check failed (the first failure is named), 2 usage error.`;

export const runVerify = (bundleFile: string, publicKeyFile: string | undefined, io: CliIo): number => {
  if (publicKeyFile === undefined) {
    io.stderr('raes-tools verify: --public-key <file> is required: the signer\'s raes-signing-key.pub.pem (from `raes-tools keys generate`)\n');
    return EXIT_USAGE;
  }
  const key = readPublicKey(publicKeyFile);
  if (!key.ok) {
    io.stderr(`raes-tools verify: ${key.message}\n`);
    return EXIT_USAGE;
  }
  let fd: number;
  let size: number;
  try {
    fd = openSync(bundleFile, 'r');
    size = fstatSync(fd).size;
  } catch (error) {
    io.stderr(`raes-tools verify: cannot read the bundle ${bundleFile}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  let verdict: ReturnType<typeof verifyBundle>;
  try {
    verdict = verifyBundle(fd, size, key.value);
  } catch (error) {
    io.stderr(`raes-tools verify: cannot read the bundle ${bundleFile}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  } finally {
    closeSync(fd);
  }
  if (!verdict.ok) {
    io.stderr(`raes-tools verify: FAILED ${verdict.code}: ${verdict.message}\n`);
    return EXIT_INVALID;
  }
  const chained = verdict.chainedEvents === verdict.events ? 'chained' : `${verdict.chainedEvents} of them chained, after ${verdict.events - verdict.chainedEvents} written before chaining`;
  io.stdout(`bundle ${bundleFile} verified: signature, ${verdict.events} events in ${verdict.streams} streams (${chained}), ${verdict.documents} RAES documents\n`);
  return EXIT_OK;
};

export const registerVerify = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  program
    .command('verify')
    .description('check a signed bundle offline: signature, hash chains and RAES schemas')
    .argument('<bundle>', 'the bundle file')
    .option('--public-key <file>', 'the signer\'s public key (PEM)')
    .addHelpText('after', HELP)
    .action((bundle: string, opts: { publicKey?: string }) => setExit(runVerify(bundle, opts.publicKey, io)));
};
