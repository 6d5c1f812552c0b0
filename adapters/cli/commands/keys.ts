import { Command } from 'commander';
import { CliIo, EXIT_INVALID, EXIT_OK } from '../io';
import { generateSigningKeys, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from '../signing-keys';

const HELP = `
Writes ${PRIVATE_KEY_FILE} (mode 0600: it signs bundles, keep it secret) and ${PUBLIC_KEY_FILE}
(give it to whoever checks a bundle: \`raes-tools verify <bundle> --public-key ${PUBLIC_KEY_FILE}\`).
Existing key files are never overwritten.
Exit codes: 0 written, 1 refused (a key file exists, or the folder is missing), 2 usage error.`;

export const registerKeys = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const keys = program.command('keys').description('manage the Ed25519 keys that sign exported bundles');
  keys
    .command('generate')
    .description('make a new Ed25519 signing key pair')
    .option('--out <dir>', 'the folder to write the two key files into (created, readable by you only, when missing)', '.')
    .addHelpText('after', HELP)
    .action((opts: { out: string }) => {
      const generated = generateSigningKeys(opts.out);
      if (!generated.ok) {
        io.stderr(`raes-tools keys generate: ${generated.message}\n`);
        setExit(EXIT_INVALID);
        return;
      }
      io.stdout(`private key: ${generated.value.privateKey} (keep it secret; pass it to \`raes-tools export --bundle --key\`)\npublic key:  ${generated.value.publicKey}\n`);
      setExit(EXIT_OK);
    });
};
