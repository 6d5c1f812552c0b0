import { CHAIN_KEY, chainLink } from '../../../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, rollOn, sealData } from '../../../domain/integrity/seal';
import { verifyIntegrity, type VerifiedEvent } from '../../../domain/integrity/verify';
import type { JsonValue } from '../../../domain/ports/event-store';

/** Builds a history as the chained store writes it, so each case changes one thing. */
const history = () => {
  const events: VerifiedEvent[] = [];
  const heads = new Map<string, { revision: number; digest: string | null }>();
  let rolling = ROLLING_START;
  let count = 0;
  const add = (stream: string, type: string, data: JsonValue, linked = true): void => {
    const head = heads.get(stream);
    const revision = head === undefined ? 0 : head.revision + 1;
    const link = linked ? chainLink(head?.digest ?? null, stream, revision, type, data) : undefined;
    events.push({ stream, revision: BigInt(revision), position: BigInt(events.length + 1), type, data, metadata: link === undefined ? undefined : { [CHAIN_KEY]: link } });
    heads.set(stream, { revision, digest: link?.digest ?? null });
    if (link !== undefined) {
      rolling = rollOn(rolling, link.digest);
      count += 1;
    }
  };
  const seal = (): void => add(SEAL_STREAM, SEAL_EVENT_TYPE, sealData(BigInt(events.length), count, rolling));
  return { events, add, seal };
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
});
