import {
  episodeOfStream,
  invocationStream,
  isEpisodeId,
  leaseStream,
  parseInvocationStream,
  parseLeaseStream,
  parseSchedulerStream,
  schedulerStream,
} from '../../domain/streams';

const POLICY = 'participant.autonomous-execution.participant-behavior';
const PARTICIPANT = 'participant.behavior.participant-agent';
const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

describe('stream names carry the episode', () => {
  it('spells each aggregate stream with its episode, and parses it back', () => {
    expect(invocationStream('episode-a', INVOCATION)).toBe(`invocation-episode-a/${INVOCATION}`);
    expect(schedulerStream('episode-a', POLICY, PARTICIPANT)).toBe(`scheduler-episode-a/${POLICY}|${PARTICIPANT}`);
    expect(leaseStream('episode-a', PARTICIPANT)).toBe(`lease-episode-a/${PARTICIPANT}`);
    expect(parseInvocationStream(invocationStream('sweep-17.run:3@host', INVOCATION))).toEqual({ episodeId: 'sweep-17.run:3@host', invocationActionInstanceId: INVOCATION });
    expect(parseSchedulerStream(schedulerStream('e', POLICY, PARTICIPANT))).toEqual({ episodeId: 'e', policyAddress: POLICY, participantAddress: PARTICIPANT });
    expect(parseLeaseStream(leaseStream('e', PARTICIPANT))).toEqual({ episodeId: 'e', participantAddress: PARTICIPANT });
  });

  it('keeps two episodes of one invocation id in two streams', () => {
    expect(invocationStream('episode-a', INVOCATION)).not.toBe(invocationStream('episode-b', INVOCATION));
    expect(schedulerStream('episode-a', POLICY, PARTICIPANT)).not.toBe(schedulerStream('episode-b', POLICY, PARTICIPANT));
  });

  it('names the episode of an engine stream, and none of any other', () => {
    expect(episodeOfStream(invocationStream('episode-a', INVOCATION))).toBe('episode-a');
    expect(episodeOfStream(schedulerStream('episode-b', POLICY, PARTICIPANT))).toBe('episode-b');
    expect(episodeOfStream(leaseStream('episode-c', PARTICIPANT))).toBe('episode-c');
    for (const stream of ['store-identity', 'raes-seals', `invocation-${INVOCATION}`, 'invocation-/x', `scheduler-e/${POLICY}`]) {
      expect(episodeOfStream(stream)).toBeUndefined();
    }
  });

  it('accepts as an episode id only what can end at the first slash and name a file', () => {
    for (const id of ['episode-20261204-180725-a70a62', 'sweep-17', 'a', 'run.3:seed@7', 'A_b']) expect(isEpisodeId(id)).toBe(true);
    for (const id of ['', 'a/b', '../x', '-leading', 'two words', 'x'.repeat(129), 'é']) expect(isEpisodeId(id)).toBe(false);
  });
});
