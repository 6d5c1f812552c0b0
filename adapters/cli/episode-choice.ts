import { randomBytes } from 'node:crypto';
import { listEpisodes } from '../../projections';
import { isEpisodeId } from '../../domain/streams';
import { catchUpViews } from './audit-report';
import { fail, type Built } from './built';
import { EXIT_INVALID, EXIT_USAGE } from './io';
import { jobEpisodes } from './job-file';
import type { Workspace } from './workspace';

/**
 * Which episode a command works on, when one store holds many (docs/decisions.md, many episodes per
 * store): the one given with --episode, else the only one the store holds; with several and none
 * given, a usage error that lists them.
 */

export const EPISODE_HELP =
  'The store may hold many episodes: --episode <id> says which; without it, the only episode the store holds (with several, a usage error lists them).';

/** A usage error for an --episode that cannot be an episode id; undefined when it can. */
export const invalidEpisodeId = (episodeId: string): string | undefined =>
  isEpisodeId(episodeId)
    ? undefined
    : `expected an episode id at --episode (letters, digits and . _ : @ -, starting with a letter or digit, up to 128 characters), got '${episodeId.slice(0, 60)}'`;

/** How messages name the store the episodes are in. */
export const storeOfEpisodes = (workspace: Workspace): string =>
  workspace.kind === 'sqlite' ? `the store of ${workspace.dataDir}` : `the ${workspace.kind} store (data dir ${workspace.dataDir})`;

/** The episodes the store holds (as its caught-up views know them), then those with a job file only. */
export const episodesOf = async (workspace: Workspace): Promise<Built<readonly string[]>> => {
  const caught = await catchUpViews(workspace);
  if (!caught.ok) return caught;
  return { ok: true, value: knownEpisodes(workspace) };
};

/** The episodes the views know as they stand (a caller that caught them up itself), then those with a job file only. */
export const knownEpisodes = (workspace: Workspace, views: Parameters<typeof listEpisodes>[0] = workspace.views): readonly string[] => {
  const episodes = [...listEpisodes(views)];
  if (workspace.kind !== 'memory') for (const episode of jobEpisodes(workspace.dataDir)) if (!episodes.includes(episode)) episodes.push(episode);
  return episodes;
};

/** Picks from the known episodes; undefined when none is asked for and the store holds none yet. */
export const pickEpisode = (asked: string | undefined, known: readonly string[], where: string): Built<string | undefined> => {
  if (asked !== undefined) {
    const invalid = invalidEpisodeId(asked);
    if (invalid !== undefined) return fail(EXIT_USAGE, invalid);
    if (known.includes(asked)) return { ok: true, value: asked };
    return fail(EXIT_INVALID, known.length === 0 ? `no episode ${asked}: ${where} holds no episode yet (\`raes-tools run\` records one)` : `no episode ${asked} in ${where}; the episodes it holds: ${known.join(', ')}`);
  }
  if (known.length <= 1) return { ok: true, value: known[0] };
  return fail(EXIT_USAGE, `${where} holds ${known.length} episodes: ${known.join(', ')}; say which with --episode <id>`);
};

/** The episode a command works on in this workspace (see pickEpisode). */
export const chooseEpisode = async (workspace: Workspace, asked: string | undefined): Promise<Built<string | undefined>> => {
  const known = await episodesOf(workspace);
  if (!known.ok) return known;
  return pickEpisode(asked, known.value, storeOfEpisodes(workspace));
};

const freshEpisodeId = (now: Date): string =>
  `episode-${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(3).toString('hex')}`;

/**
 * The episode a run (or an embedded engine) starts or continues: the one asked for (a new id starts it
 * beside the others in the store), else the only one this data dir ran, else a fresh one; when this
 * data dir ran several, a usage error says which there are.
 */
export const runEpisode = (workspace: Workspace, asked: string | undefined): Built<string> => {
  if (asked !== undefined) {
    const invalid = invalidEpisodeId(asked);
    return invalid === undefined ? { ok: true, value: asked } : fail(EXIT_USAGE, invalid);
  }
  const ran = workspace.kind === 'memory' ? [] : jobEpisodes(workspace.dataDir);
  if (ran.length === 0) return { ok: true, value: freshEpisodeId(new Date()) };
  if (ran.length === 1) return { ok: true, value: ran[0]! };
  return fail(EXIT_USAGE, `${workspace.dataDir} ran ${ran.length} episodes: ${ran.join(', ')}; say which to continue with --episode <id> (or give a new id to start another)`);
};
