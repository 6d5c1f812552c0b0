import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeValidationErrors } from '../../domain/invocation';

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
