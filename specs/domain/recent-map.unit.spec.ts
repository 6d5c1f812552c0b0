import fc from 'fast-check';
import { RecentMap } from '../../domain/recent-map';

type Operation = { readonly kind: 'set'; readonly key: number; readonly value: number } | { readonly kind: 'get' | 'delete'; readonly key: number };

// Few keys and small capacities, so that generations turn over often and reads find keys in either one.
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.nat(12), value: fc.integer() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('get' as const), key: fc.nat(12) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(12) }), weight: 1 },
);

describe('RecentMap', () => {
  it('never answers a stale value, holds at most its capacity, and keeps the last capacity / 2 keys set or read', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), fc.array(operation, { maxLength: 40 }), (capacity, operations) => {
        const map = new RecentMap<number, number>(capacity);
        // The model: every key's last value (deleted keys dropped), and the keys in order of last set or
        // read; a deleted key keeps its place there, as its slot counted until then.
        const latest = new Map<number, number>();
        let used: number[] = [];
        const touch = (key: number): void => {
          used = used.filter((other) => other !== key);
          used.push(key);
        };
        for (const step of operations) {
          if (step.kind === 'set') {
            map.set(step.key, step.value);
            latest.set(step.key, step.value);
            touch(step.key);
          } else if (step.kind === 'delete') {
            map.delete(step.key);
            latest.delete(step.key);
          } else {
            const found = map.get(step.key);
            if (found !== undefined) {
              expect(found).toBe(latest.get(step.key));
              touch(step.key);
            }
          }
          expect(map.size).toBeLessThanOrEqual(capacity);
        }
        // Every key of the last capacity / 2 is still there, with its last value.
        const recent = used.slice(-Math.floor(capacity / 2)).reverse();
        for (const key of recent) if (latest.has(key)) expect(map.get(key)).toBe(latest.get(key));
      }),
      { numRuns: 2000 },
    );
  });

  it('forgets the keys not used since two generations filled', () => {
    const map = new RecentMap<string, number>(4);
    for (const key of ['a', 'b', 'c', 'd', 'e']) map.set(key, 1);
    expect(map.get('a')).toBeUndefined();
    expect(map.get('e')).toBe(1);
    expect(map.size).toBeLessThanOrEqual(4);
  });

  it('keeps a key read from the previous generation through the next turnover', () => {
    const map = new RecentMap<string, number>(4);
    for (const key of ['a', 'b', 'c']) map.set(key, 1);
    expect(map.get('a')).toBe(1);
    map.set('d', 2);
    expect(map.get('a')).toBe(1);
    expect(map.get('b')).toBeUndefined();
  });

  it('refuses a capacity that cannot hold two generations', () => {
    expect(() => new RecentMap(1)).toThrow(/at least 2/);
  });
});
