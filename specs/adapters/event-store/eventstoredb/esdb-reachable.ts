import { spawnSync } from 'node:child_process';

/** First host:port of an esdb:// or esdb+discover:// connection string. */
export const firstEndpoint = (connectionString: string): { host: string; port: number } | undefined => {
  const match = /^esdb(?:\+discover)?:\/\/(?:[^@/]*@)?([^,/?]+)/.exec(connectionString.trim());
  if (match === null) return undefined;
  const [host, port] = match[1]!.split(':');
  return { host: host!, port: port === undefined ? 2113 : Number(port) };
};

/**
 * Whether a TCP connection to the first node opens within two seconds. Checked synchronously (in a
 * child process) because jest decides at file load whether a describe block runs.
 */
export const isReachable = (connectionString: string): boolean => {
  const endpoint = firstEndpoint(connectionString);
  if (endpoint === undefined) return false;
  const probe =
    `const s=require('net').connect(${endpoint.port},${JSON.stringify(endpoint.host)});` +
    `s.setTimeout(2000,()=>process.exit(1));s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 3000 }).status === 0;
};
