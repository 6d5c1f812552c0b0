import { canonicalJson } from '../../../domain/integrity/canonical-json';
import { CHAIN_KEY, chainLink, storedLink, type ChainVersion } from '../../../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, rollOn, sealData, sealRolling } from '../../../domain/integrity/seal';
import { verifyIntegrity, type VerifiedEvent } from '../../../domain/integrity/verify';
import type { JsonValue } from '../../../domain/ports/event-store';

/**
 * Builds a history as the chained store writes it, so each case changes one thing: links and seals in
 * `version` (1, as stores written before version 2 hold them, or 2), switched with `write`.
 */
const history = (start: ChainVersion = 2) => {
  let version = start;
  const events: VerifiedEvent[] = [];
  const heads = new Map<string, { revision: number; digest: string | null }>();
  let rolling = ROLLING_START;
  let count = 0;
  let unsealed: string[] = [];
  const add = (stream: string, type: string, data: JsonValue, linked = true): void => {
    const head = heads.get(stream);
    const revision = head === undefined ? 0 : head.revision + 1;
    const link = linked ? chainLink(head?.digest ?? null, stream, revision, type, data, version) : undefined;
    events.push({ stream, revision: BigInt(revision), position: BigInt(events.length + 1), type, data, metadata: link === undefined ? undefined : { [CHAIN_KEY]: storedLink(link) } });
    heads.set(stream, { revision, digest: link?.digest ?? null });
    if (link !== undefined) unsealed.push(link.digest);
  };
  const seal = (): void => {
    rolling = sealRolling(version, rolling, unsealed);
    count += unsealed.length;
    unsealed = [];
    add(SEAL_STREAM, SEAL_EVENT_TYPE, sealData(BigInt(events.length), count, rolling));
  };
  const write = (next: ChainVersion): void => {
    version = next;
  };
  return { events, add, seal, write };
};

describe('verifyIntegrity', () => {
  it('finds a chained and sealed history sound, and reports an unlinked prefix as a note', () => {
    const built = history();
    built.add('a', 'Old', { n: 0 }, false);
    built.add('a', 'Opened', { n: 1 });
    built.add('b', 'Opened', { n: 2 });
    built.seal();
    built.add('a', 'Moved', { n: 3 });
    const report = verifyIntegrity(built.events);
    expect(report).toEqual({ events: 5, chained_events: 4, unchained_prefix: 1, streams: 3, seals: 1, unsealed_events: 1, findings: [] });
  });

  it('finds a gap in the positions of a store that numbers its events without gaps, and only there', () => {
    const built = history();
    built.add('x', 'Opened', {});
    built.add('a', 'Opened', {});
    built.add('b', 'Opened', {});
    built.add('c', 'Opened', {});
    built.add('b', 'Moved', {});
    built.add('a', 'Moved', {});
    // Streams removed whole: every other stream's own chain still holds.
    const kept = built.events.filter((event) => event.stream !== 'x' && event.stream !== 'b');
    expect(verifyIntegrity(kept).findings).toEqual([]);
    const gaps = (events: readonly VerifiedEvent[]) =>
      verifyIntegrity(events, true).findings.map((finding) => [finding.code, finding.position, finding.message.replace(/^.*\) (follows position \d+|is the first), and the store numbers its events without gaps: /, '$1: ')]);
    expect(gaps(kept)).toEqual([
      ['position_gap', '2', 'is the first: the event before it was removed'],
      ['position_gap', '4', 'follows position 2: the event before it was removed'],
      ['position_gap', '6', 'follows position 4: the event before it was removed'],
    ]);
    const middle = built.events.filter((event) => event.position !== 2n);
    expect(gaps(middle).map(([code, position]) => [code, position])).toEqual([
      ['position_gap', '3'],
      ['revision_gap', '6'],
    ]);
    expect(verifyIntegrity(built.events, true).findings).toEqual([]);
  });

  it('finds an unlinked event after linked ones', () => {
    const built = history();
    built.add('a', 'Opened', {});
    built.add('a', 'Moved', {}, false);
    expect(verifyIntegrity(built.events).findings.map((finding) => [finding.code, finding.position])).toEqual([['link_missing', '2']]);
  });

  it('finds a seal whose figures were changed, and the next seal, judged from the figures the changed one states', () => {
    const built = history();
    built.add('a', 'Opened', {});
    built.seal();
    built.add('a', 'Moved', {});
    built.seal();
    const forged = built.events.map((event) =>
      event.position === 2n ? { ...event, data: { ...(event.data as object), event_count: 7 } } : event,
    );
    const codes = verifyIntegrity(forged).findings.map((finding) => [finding.code, finding.position]);
    // The changed seal breaks its own link too; the next seal continues from the figures the changed one states.
    expect(codes).toEqual([['chain_digest_mismatch', '2'], ['seal_mismatch', '2'], ['seal_mismatch', '4']]);
  });

  it('finds a seal that covers a position after its own', () => {
    const built = history();
    built.add('a', 'Opened', {});
    built.add(SEAL_STREAM, SEAL_EVENT_TYPE, sealData(9n, 1, 'x'));
    expect(verifyIntegrity(built.events).findings.map((finding) => finding.code)).toEqual(['seal_out_of_order']);
  });

  it('checks version-1 links and seals (hex digests, a running digest rolled per event), and a history that goes on in version 2', () => {
    const built = history(1);
    built.add('a', 'Opened', { n: 1 });
    built.add('b', 'Opened', { n: 2 });
    built.seal();
    built.write(2);
    built.add('a', 'Moved', { n: 3 });
    built.seal();
    const [first, , firstSeal, moved, secondSeal] = built.events;
    expect(first!.metadata![CHAIN_KEY]).toEqual({ v: 1, digest: expect.stringMatching(/^[0-9a-f]{64}$/), previous: null });
    expect((firstSeal!.data as { rolling_digest: string }).rolling_digest).toBe(
      rollOn(rollOn(ROLLING_START, (first!.metadata![CHAIN_KEY] as { digest: string }).digest), (built.events[1]!.metadata![CHAIN_KEY] as { digest: string }).digest),
    );
    expect(moved!.metadata![CHAIN_KEY]).toEqual({ v: 2, d: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), p: (first!.metadata![CHAIN_KEY] as { digest: string }).digest });
    expect(secondSeal!.metadata![CHAIN_KEY]).toMatchObject({ v: 2 });
    expect(verifyIntegrity(built.events)).toEqual({ events: 5, chained_events: 5, unchained_prefix: 0, streams: 3, seals: 2, unsealed_events: 0, findings: [] });
    // A version-1 event edited is found by its version-1 link.
    const edited = built.events.map((event) => (event.position === 1n ? { ...event, data: { n: 9 } } : event));
    expect(verifyIntegrity(edited).findings.map((finding) => [finding.code, finding.position])).toEqual([['chain_digest_mismatch', '1']]);
  });

  it('judges the data text a store holds: its canonical JSON as written, another text of the same data, or edited text', () => {
    const built = history(2);
    built.add('a', 'Opened', { b: 1, a: [1, 'x'] });
    built.add('a', 'Moved', { n: 2 });
    const withText = (text: (event: VerifiedEvent) => string) => built.events.map((event) => ({ ...event, dataJson: text(event) }));
    // As the engine stores it.
    expect(verifyIntegrity(withText((event) => canonicalJson(event.data))).findings).toEqual([]);
    // As a store that writes JSON its own way (members reordered, spaces): the data is canonicalised.
    expect(verifyIntegrity(withText((event) => JSON.stringify(event.data, null, 1))).findings).toEqual([]);
    const reordered = withText((event) => (event.revision === 0n ? '{"b":1,"a":[1,"x"]}' : canonicalJson(event.data)));
    expect(verifyIntegrity(reordered).findings).toEqual([]);
    // Edited data, its text and its parse alike, is still found.
    const edited = built.events.map((event) => (event.revision === 1n ? { ...event, data: { n: 3 }, dataJson: '{"n":3}' } : { ...event, dataJson: canonicalJson(event.data) }));
    expect(verifyIntegrity(edited).findings.map((finding) => [finding.code, finding.position])).toEqual([['chain_digest_mismatch', '2']]);
  });

  it('judges a version-2 link by the data text as stored, without parsing it, whatever its stream name needs escaped', () => {
    const built = history(2);
    for (const stream of ['plain', 'a "quoted" \\ name', 'tab\there']) {
      built.add(stream, 'Opened', { n: 1, s: stream });
      built.add(stream, 'Moved', { n: 2 });
    }
    const unparsed = built.events.map((event) => {
      const dataJson = canonicalJson(event.data);
      return Object.defineProperty({ ...event, dataJson }, 'data', {
        get: () => {
          throw new Error(`the data of ${event.stream} was parsed`);
        },
      });
    });
    expect(verifyIntegrity(unparsed).findings).toEqual([]);
  });

  it('judges a version-2 seal by the version-2 rule: a running digest rolled per event does not match it', () => {
    const built = history(2);
    built.add('a', 'Opened', {});
    const digest = (built.events[0]!.metadata![CHAIN_KEY] as { d: string }).d;
    built.add(SEAL_STREAM, SEAL_EVENT_TYPE, sealData(1n, 1, rollOn(ROLLING_START, digest)));
    expect(verifyIntegrity(built.events).findings.map((finding) => finding.code)).toEqual(['seal_mismatch']);
  });
});
