import { dirname, join } from 'node:path';
import { parseEventStoreSettings, type EventStoreConfig, type EventStoreKind } from '../event-store/config';
import { openEventStore } from '../event-store/open-event-store';
import { DEFAULT_SQLITE_PATH } from '../event-store/sqlite/sqlite-event-store';
import type { OpenedEventStore } from '../event-store/store-tail';
import { ChainedEventStore, SEAL_EVERY } from '../event-store/chained-event-store';
import { openViewsDatabase } from '../views/views-database';
import { sqliteViews, type SqliteViews } from '../views/sqlite';
import { checkStore, recordLastPosition } from './store-check';
import { readStoreRecord } from './store-record';
import { FOLLOWED_PROJECTIONS, ProjectionRunner } from '../../projections';
import { lockDataDir } from './data-dir-lock';
import { ensureDataDir, requireDataDir } from './data-dir';
import { corruptViewsMessage, isDamagedSqliteFile, setCorruptViewsAside } from './corrupt-views';
import { legacyDataDirMessage } from './job-file';

/**
 * Where a command finds the engine's durable state: the event store (--store, RAES_EVENT_STORE) and,
 * in the data directory (--data-dir, esdata by default), the views database and the job files (one per
 * episode, `jobs/<episode>.json`) that remember which scenario and manifest each episode runs.
 */

export interface StoreFlags {
  readonly store?: string;
  readonly dataDir?: string;
  readonly postgresUrl?: string;
}

export interface Workspace {
  readonly kind: EventStoreKind;
  readonly dataDir: string;
  readonly store: OpenedEventStore;
  /** The views database, through the views port and every projection's rows. */
  readonly views: SqliteViews;
  /** Where a corrupt views database was moved, when this opening replaced it. */
  readonly corruptViewsSetAside?: string;
  /** The SQLite store's file (the embedded store only). */
  readonly storeFile?: string;
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
  /**
   * Only reads what `run` wrote: a missing data directory is reported, never created, and the store
   * and the views are opened read-only (the views are caught up in a temporary copy): nothing in the folder changes.
   */
  readonly readOnly?: boolean;
  /** Sets a corrupt views database aside and opens a new, empty one (for `projections rebuild`). */
  readonly replaceCorruptViews?: boolean;
  /** Rebuilds every view from the store (`projections rebuild` of all): a store behind the views is let in. */
  readonly rebuildsViews?: boolean;
  /**
   * Keeps every view following the log while the workspace is open (an engine: run, the embedding
   * facade), through the store's subscription: views are current within a bounded lag, not only after
   * `audit`, and a crash leaves them at their committed checkpoints.
   */
  readonly followsLog?: boolean;
}

/** How messages name a store, and the setting that points at another one. */
const storeNaming = (config: EventStoreConfig): { readonly label: string; readonly setting: string } => {
  switch (config.kind) {
    case 'sqlite':
      return { label: `"${config.path}"`, setting: '--data-dir (or RAES_SQLITE_PATH)' };
    case 'postgres':
      return { label: 'on PostgreSQL', setting: '--postgres-url (or RAES_POSTGRES_URL)' };
    case 'eventstoredb':
      return { label: 'on EventStoreDB', setting: 'ESDB_CONNECTION_STRING' };
    case 'memory':
      return { label: 'in memory', setting: '--store' };
  }
};

/**
 * Opens the store and the views (and takes the writer lock for writer commands), then checks the store
 * is the one the data directory belongs to (see store-check.ts); close() releases all.
 */
export const openWorkspace = async (flags: StoreFlags, options: WorkspaceOptions, env: NodeJS.ProcessEnv = process.env): Promise<WorkspaceOpened> => {
  const opened = openWorkspaceFiles(flags, options, env);
  if (!opened.ok || opened.workspace.kind === 'memory') return opened;
  const workspace = opened.workspace;
  const naming = storeNaming(opened.config);
  let checked: Awaited<ReturnType<typeof checkStore>>;
  try {
    checked = await checkStore({
      store: workspace.store,
      storeKind: workspace.kind,
      storeLabel: naming.label,
      storeSetting: naming.setting,
      dataDir: workspace.dataDir,
      views: workspace.views.database,
      writer: options.writer !== undefined,
      ...(options.rebuildsViews === true ? { rebuildsViews: true } : {}),
    });
  } catch (error) {
    await workspace.close();
    throw error;
  }
  if (!checked.ok) {
    await workspace.close();
    return { ok: false, usage: false, message: checked.message };
  }
  const record = checked.record;
  if (options.writer === undefined || record === undefined) return { ok: true, workspace };
  const live = options.followsLog === true ? new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: FOLLOWED_PROJECTIONS }) : undefined;
  live?.startLive();
  return {
    ok: true,
    workspace: {
      ...workspace,
      close: async () => {
        try {
          await live?.stop();
          // The closing seal first, so that the position recorded below is the store's last.
          if (workspace.store instanceof ChainedEventStore) await workspace.store.seal();
          // Read-only commands catch the views up in a temporary copy only: the writer leaves them caught up on disk.
          await new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: FOLLOWED_PROJECTIONS }).catchUp();
          await recordLastPosition(workspace.store, workspace.dataDir, record);
        } catch {
          // Both are kept up only here; a later writer catches up again, and the check also reads the views' positions.
        } finally {
          await workspace.close();
        }
      },
    },
  };
};

type FilesOpened = { readonly ok: true; readonly workspace: Workspace; readonly config: EventStoreConfig } | { readonly ok: false; readonly message: string; readonly usage: boolean };

const openWorkspaceFiles = (flags: StoreFlags, options: WorkspaceOptions, env: NodeJS.ProcessEnv): FilesOpened => {
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
  const legacy = config.kind === 'memory' ? undefined : legacyDataDirMessage(dataDir);
  if (legacy !== undefined) return { ok: false, usage: false, message: legacy };
  // One writer per data dir on SQLite (a single-host store); on a server store several engines share the
  // store and each participant runs in the engine holding its lease there (adapters/engine/leased-runtime-manager.ts).
  const lock = options.writer === undefined || config.kind !== 'sqlite' ? undefined : lockDataDir(dataDir, options.writer);
  if (lock !== undefined && !lock.ok) return { ok: false, usage: false, message: lock.message };
  const release = (): void => {
    if (lock?.ok === true) lock.release();
  };
  let opened: ReturnType<typeof openEventStore>;
  try {
    opened = openEventStore(config, options.readOnly === true ? { readOnly: true } : {});
  } catch (error) {
    // The EventStoreDB client throws on a malformed connection string.
    release();
    return { ok: false, usage: true, message: `the event store settings are unusable (see ESDB_CONNECTION_STRING): ${(error as Error).message}` };
  }
  if (opened.kind === 'storage_failure') {
    release();
    const recorded = config.kind === 'sqlite' ? readStoreRecord(dataDir) : undefined;
    // Unlike the views, the store is the history itself: nothing rebuilds a damaged one.
    if (config.kind === 'sqlite' && isDamagedSqliteFile(opened.reason)) {
      const owner = recorded?.kind === 'found' ? ` (store ${recorded.record.store_id})` : '';
      return {
        ok: false,
        usage: false,
        message: `${opened.reason}; the store file${owner} is damaged, and the history it held cannot be rebuilt from anything else: restore it from a backup (with its -wal file, if any), or point --data-dir at the folder of an intact copy`,
      };
    }
    // A read-only command does not create a missing store file: say it belonged to this data dir.
    const lost =
      recorded?.kind === 'found'
        ? `; yet ${dataDir} belongs to store ${recorded.record.store_id}, so the store was removed or emptied: restore it from a backup, or point --data-dir at the folder it is in`
        : '';
    return { ok: false, usage: false, message: `${opened.reason}${lost}` };
  }
  const viewsPath = config.kind === 'memory' ? ':memory:' : join(dataDir, 'views.sqlite');
  const viewsOptions = options.readOnly === true ? { readOnly: true } : {};
  let views = openViewsDatabase(viewsPath, viewsOptions);
  let corruptViewsSetAside: string | undefined;
  if ('kind' in views && isDamagedSqliteFile(views.reason) && options.replaceCorruptViews === true) {
    try {
      corruptViewsSetAside = setCorruptViewsAside(viewsPath);
      views = openViewsDatabase(viewsPath, viewsOptions);
    } catch (error) {
      void opened.store.close();
      release();
      return { ok: false, usage: false, message: `setting the corrupt views database "${viewsPath}" aside failed: ${(error as Error).message}` };
    }
  }
  if ('kind' in views) {
    void opened.store.close();
    release();
    const message = isDamagedSqliteFile(views.reason) ? corruptViewsMessage(viewsPath, dataDir, views.reason) : views.reason;
    return { ok: false, usage: false, message };
  }
  // Every writer appends through the chain (docs/integrity.md); a reader sees the store as it is.
  const store = options.writer === undefined ? opened.store : new ChainedEventStore(opened.store, SEAL_EVERY, config.kind !== 'eventstoredb');
  const viewsPort = sqliteViews(views);
  return {
    ok: true,
    config,
    workspace: {
      kind: config.kind,
      dataDir,
      store,
      views: viewsPort,
      ...(corruptViewsSetAside === undefined ? {} : { corruptViewsSetAside }),
      ...(config.kind === 'sqlite' ? { storeFile: config.path } : {}),
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

export { JobCodec, jobEpisodes, readJob, writeJob, type Job, type JobRead } from './job-file';
