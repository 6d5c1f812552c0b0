import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { openEventStore, parseEventStoreSettings, type EventStore, type EventStoreKind } from '../event-store';
import { DEFAULT_SQLITE_PATH } from '../event-store/sqlite/sqlite-event-store';
import { openViewsDatabase } from '../views/views-database';
import { sqliteViews, type SqliteViews } from '../views/sqlite';
import { describeValidationErrors } from '../../domain/invocation';
import { lockDataDir } from './data-dir-lock';
import { ensureDataDir, requireDataDir } from './data-dir';
import { corruptViewsMessage, isCorruptViews, setCorruptViewsAside } from './corrupt-views';

/**
 * Where a command finds the engine's durable state: the event store (--store, RAES_EVENT_STORE) and,
 * in the data directory (--data-dir, esdata by default), the views database and the job file that
 * remembers which scenario, manifest and episode run there.
 */

export interface StoreFlags {
  readonly store?: string;
  readonly dataDir?: string;
  readonly postgresUrl?: string;
}

export interface Workspace {
  readonly kind: EventStoreKind;
  readonly dataDir: string;
  readonly store: EventStore;
  /** The views database, through the views port and every projection's rows. */
  readonly views: SqliteViews;
  /** Where a corrupt views database was moved, when this opening replaced it. */
  readonly corruptViewsSetAside?: string;
  close(): Promise<void>;
}

export type WorkspaceOpened = { readonly ok: true; readonly workspace: Workspace } | { readonly ok: false; readonly message: string; readonly usage: boolean };

/** The data directory a command uses: the flag, else the folder of RAES_SQLITE_PATH, else esdata. */
export const dataDirOf = (flags: StoreFlags, env: NodeJS.ProcessEnv = process.env): string => {
  if (flags.dataDir !== undefined) return flags.dataDir;
  const sqlitePath = env.RAES_SQLITE_PATH;
  return dirname(sqlitePath !== undefined && sqlitePath.trim() !== '' ? sqlitePath : DEFAULT_SQLITE_PATH);
};

export interface WorkspaceOptions {
  /** Reads what earlier commands wrote: the memory store (which keeps nothing between processes) is a usage error. */
  readonly durable: boolean;
  /** Writes as the engine (runs invocations or recovery): takes the data directory's writer lock, named after the command. */
  readonly writer?: string;
  /** Only reads what `run` wrote: a missing data directory is reported, never created. */
  readonly readOnly?: boolean;
  /** Sets a corrupt views database aside and opens a new, empty one (for `projections rebuild`). */
  readonly replaceCorruptViews?: boolean;
}

/** Opens the store and the views (and takes the writer lock for writer commands); close() releases all. */
export const openWorkspace = (flags: StoreFlags, options: WorkspaceOptions, env: NodeJS.ProcessEnv = process.env): WorkspaceOpened => {
  const dataDir = dataDirOf(flags, env);
  const sqlitePath =
    flags.dataDir === undefined && env.RAES_SQLITE_PATH !== undefined && env.RAES_SQLITE_PATH.trim() !== ''
      ? env.RAES_SQLITE_PATH
      : join(dataDir, 'events.sqlite');
  const parsed = parseEventStoreSettings(
    {
      store: flags.store ?? env.RAES_EVENT_STORE,
      sqlitePath,
      esdbConnectionString: env.ESDB_CONNECTION_STRING,
      postgresUrl: flags.postgresUrl ?? env.RAES_POSTGRES_URL,
      postgresPoolSize: env.RAES_POSTGRES_POOL_SIZE,
    },
    flags.store === undefined ? 'RAES_EVENT_STORE' : '--store',
  );
  if (parsed.kind === 'rejected') return { ok: false, message: parsed.message, usage: true };
  const config = parsed.config;
  if (config.kind === 'memory' && options.durable) {
    return {
      ok: false,
      usage: true,
      message: 'the memory store keeps nothing between commands; use --store sqlite (the default), eventstoredb or postgres',
    };
  }
  const ready = config.kind === 'memory' ? { ok: true as const } : options.readOnly === true ? requireDataDir(dataDir) : ensureDataDir(dataDir);
  if (!ready.ok) return ready;
  const lock = options.writer === undefined || config.kind === 'memory' ? undefined : lockDataDir(dataDir, options.writer);
  if (lock !== undefined && !lock.ok) return { ok: false, usage: false, message: lock.message };
  const release = (): void => {
    if (lock?.ok === true) lock.release();
  };
  let opened: ReturnType<typeof openEventStore>;
  try {
    opened = openEventStore(config);
  } catch (error) {
    // The EventStoreDB client throws on a malformed connection string.
    release();
    return { ok: false, usage: true, message: `the event store settings are unusable (see ESDB_CONNECTION_STRING): ${(error as Error).message}` };
  }
  if (opened.kind === 'storage_failure') {
    release();
    return { ok: false, usage: false, message: opened.reason };
  }
  const viewsPath = config.kind === 'memory' ? ':memory:' : join(dataDir, 'views.sqlite');
  let views = openViewsDatabase(viewsPath);
  let corruptViewsSetAside: string | undefined;
  if ('kind' in views && isCorruptViews(views.reason) && options.replaceCorruptViews === true) {
    try {
      corruptViewsSetAside = setCorruptViewsAside(viewsPath);
      views = openViewsDatabase(viewsPath);
    } catch (error) {
      void opened.store.close();
      release();
      return { ok: false, usage: false, message: `setting the corrupt views database "${viewsPath}" aside failed: ${(error as Error).message}` };
    }
  }
  if ('kind' in views) {
    void opened.store.close();
    release();
    const message = isCorruptViews(views.reason) ? corruptViewsMessage(viewsPath, dataDir, views.reason) : views.reason;
    return { ok: false, usage: false, message };
  }
  const store = opened.store;
  const viewsPort = sqliteViews(views);
  return {
    ok: true,
    workspace: {
      kind: config.kind,
      dataDir,
      store,
      views: viewsPort,
      ...(corruptViewsSetAside === undefined ? {} : { corruptViewsSetAside }),
      close: async () => {
        try {
          views.close();
          await store.close();
        } finally {
          release();
        }
      },
    },
  };
};

/** What ran in a data directory: later operator commands rebuild the engine from it. */
export const JobCodec = t.type({
  scenario_path: t.string,
  manifest_path: t.string,
  episode_id: t.string,
});
export type Job = t.TypeOf<typeof JobCodec>;

const JOB_FILE = 'job.json';

export const writeJob = (dataDir: string, job: Job): void => {
  const file: Job = { scenario_path: resolve(job.scenario_path), manifest_path: resolve(job.manifest_path), episode_id: job.episode_id };
  writeFileSync(join(dataDir, JOB_FILE), `${JSON.stringify(file, null, 2)}\n`);
};

export type JobRead = { readonly kind: 'found'; readonly job: Job } | { readonly kind: 'absent' } | { readonly kind: 'invalid'; readonly message: string };

export const readJob = (dataDir: string): JobRead => {
  const path = join(dataDir, JOB_FILE);
  if (!existsSync(path)) return { kind: 'absent' };
  try {
    const decoded = JobCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
    if (isLeft(decoded)) return { kind: 'invalid', message: `${path}: ${describeValidationErrors(decoded.left)}` };
    return { kind: 'found', job: decoded.right };
  } catch (error) {
    return { kind: 'invalid', message: `${path}: ${(error as Error).message}` };
  }
};
