import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { makeFolderOrThrow } from '../files/make-folder';
import { writeFileAtomically } from '../files/write-atomically';
import { join, resolve } from 'node:path';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeValidationErrors } from '../../domain/invocation';

/**
 * What ran in a data directory, one job file per episode (`jobs/<episode>.json`): later operator
 * commands rebuild the engine of an episode from its job.
 */
export const JobCodec = t.type({
  scenario_path: t.string,
  manifest_path: t.string,
  episode_id: t.string,
});
export type Job = t.TypeOf<typeof JobCodec>;

const JOBS_DIR = 'jobs';
/** The one job file of a data directory written when a data directory held one episode. */
const LEGACY_JOB_FILE = 'job.json';

const jobPath = (dataDir: string, episodeId: string): string => join(dataDir, JOBS_DIR, `${episodeId}.json`);

/** `episode_id` must be an episode id (domain/streams.ts isEpisodeId): it names the file, which is replaced whole. */
export const writeJob = (dataDir: string, job: Job): void => {
  const file: Job = { scenario_path: resolve(job.scenario_path), manifest_path: resolve(job.manifest_path), episode_id: job.episode_id };
  makeFolderOrThrow(join(dataDir, JOBS_DIR));
  writeFileAtomically(jobPath(dataDir, job.episode_id), `${JSON.stringify(file, null, 2)}\n`);
};

export type JobRead = { readonly kind: 'found'; readonly job: Job } | { readonly kind: 'absent' } | { readonly kind: 'invalid'; readonly message: string };

export const readJob = (dataDir: string, episodeId: string): JobRead => {
  const path = jobPath(dataDir, episodeId);
  if (!existsSync(path)) return { kind: 'absent' };
  try {
    const decoded = JobCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
    if (isLeft(decoded)) return { kind: 'invalid', message: `${path}: ${describeValidationErrors(decoded.left)}` };
    if (decoded.right.episode_id !== episodeId) return { kind: 'invalid', message: `${path}: expected episode_id '${episodeId}', got '${decoded.right.episode_id}'` };
    return { kind: 'found', job: decoded.right };
  } catch (error) {
    return { kind: 'invalid', message: `${path}: ${(error as Error).message}` };
  }
};

/** The episodes with a job file in the data directory, by name. */
export const jobEpisodes = (dataDir: string): readonly string[] => {
  const dir = join(dataDir, JOBS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
};

/**
 * A data directory written when a data dir held one episode (its `job.json`, its streams named without
 * the episode) cannot be read by this engine: the message says so and what to do (docs/decisions.md).
 */
export const legacyDataDirMessage = (dataDir: string): string | undefined =>
  existsSync(join(dataDir, LEGACY_JOB_FILE))
    ? `${dataDir} holds ${LEGACY_JOB_FILE}: it was written by an earlier version of raes-tools, which kept one episode per data dir and named its streams without the episode, so this version cannot read its store. Audit or export it with the version that wrote it, then start a new data dir (and, on PostgreSQL or EventStoreDB, a new database) for this version; \`raes-tools run --episode E\` then keeps many episodes in one store`
    : undefined;
