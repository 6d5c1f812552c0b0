/**
 * Stream names of the engine's aggregates, the one place that spells and parses them. Every stream
 * carries its episode, so one store holds many episodes (docs/decisions.md, episodes in stream names):
 *
 *   invocation-<episode>/<invocation action instance id>
 *   scheduler-<episode>/<policy address>|<participant address>
 *   lease-<episode>/<participant address>
 *
 * An episode id never holds '/' (isEpisodeId), so the first '/' ends it; addresses never hold '|'.
 */
export const INVOCATION_STREAM_PREFIX = 'invocation-';
export const SCHEDULER_STREAM_PREFIX = 'scheduler-';
export const LEASE_STREAM_PREFIX = 'lease-';

/** Letters, digits and . _ : @ - (starting with a letter or digit), up to 128 characters: no '/' and nothing a shell or a file name minds. */
export const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export const isEpisodeId = (episodeId: string): boolean => EPISODE_ID.test(episodeId);

export const invocationStream = (episodeId: string, invocationActionInstanceId: string): string =>
  `${INVOCATION_STREAM_PREFIX}${episodeId}/${invocationActionInstanceId}`;

export const schedulerStream = (episodeId: string, policyAddress: string, participantAddress: string): string =>
  `${SCHEDULER_STREAM_PREFIX}${episodeId}/${policyAddress}|${participantAddress}`;

/** A participant's scheduler lease in an episode (several engines on one store): which engine runs it, until when. */
export const leaseStream = (episodeId: string, participantAddress: string): string => `${LEASE_STREAM_PREFIX}${episodeId}/${participantAddress}`;

/** The episode and what follows it, for a stream of the given prefix; undefined for any other stream. */
const split = (stream: string, prefix: string): { readonly episodeId: string; readonly rest: string } | undefined => {
  if (!stream.startsWith(prefix)) return undefined;
  const slash = stream.indexOf('/', prefix.length);
  if (slash <= prefix.length) return undefined;
  return { episodeId: stream.slice(prefix.length, slash), rest: stream.slice(slash + 1) };
};

export interface InvocationStreamName {
  readonly episodeId: string;
  readonly invocationActionInstanceId: string;
}

export const parseInvocationStream = (stream: string): InvocationStreamName | undefined => {
  const parts = split(stream, INVOCATION_STREAM_PREFIX);
  return parts === undefined ? undefined : { episodeId: parts.episodeId, invocationActionInstanceId: parts.rest };
};

export interface SchedulerStreamName {
  readonly episodeId: string;
  readonly policyAddress: string;
  readonly participantAddress: string;
}

export const parseSchedulerStream = (stream: string): SchedulerStreamName | undefined => {
  const parts = split(stream, SCHEDULER_STREAM_PREFIX);
  if (parts === undefined) return undefined;
  const bar = parts.rest.indexOf('|');
  if (bar < 0) return undefined;
  return { episodeId: parts.episodeId, policyAddress: parts.rest.slice(0, bar), participantAddress: parts.rest.slice(bar + 1) };
};

export interface LeaseStreamName {
  readonly episodeId: string;
  readonly participantAddress: string;
}

export const parseLeaseStream = (stream: string): LeaseStreamName | undefined => {
  const parts = split(stream, LEASE_STREAM_PREFIX);
  return parts === undefined ? undefined : { episodeId: parts.episodeId, participantAddress: parts.rest };
};

/** The episode an engine stream belongs to; undefined for a stream of no episode (a seal, a checkpoint). */
export const episodeOfStream = (stream: string): string | undefined =>
  (parseInvocationStream(stream) ?? parseSchedulerStream(stream) ?? parseLeaseStream(stream))?.episodeId;
