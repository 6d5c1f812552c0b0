import { describeError } from '../../../domain/ports/storage-failure';

/** Where the store connects, for messages: host, port and database, never the password. */
export const describeServer = (connectionString: string): string => {
  try {
    const url = new URL(connectionString);
    const database = url.pathname.replace(/^\//, '') || '(default database)';
    return `${url.hostname}:${url.port || '5432'}/${database}`;
  } catch {
    return 'the server named by the connection string';
  }
};

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN']);

/** An operator's sentence for a pg error, telling what to check when the server cannot be reached. */
export const describePgError = (error: unknown, server: string): string => {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = describeError(error);
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) {
    return `cannot reach PostgreSQL at ${server} (${code}): start the server or fix --postgres-url / RAES_POSTGRES_URL`;
  }
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(message)) {
    return `cannot reach PostgreSQL at ${server} (${message}): start the server or fix --postgres-url / RAES_POSTGRES_URL`;
  }
  return typeof code === 'string' ? `${message} (SQLSTATE ${code})` : message;
};

/** The SQLSTATE of a unique-constraint violation: two appends at one stream revision. */
export const UNIQUE_VIOLATION = '23505';
