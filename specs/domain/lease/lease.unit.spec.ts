import fc from 'fast-check';
import { decideLease, evolveLease, holdsLease, initialLeaseState, type LeaseCommand, type LeaseState } from '../../../domain/lease';

const T0 = Date.parse('2026-04-11T10:00:00Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();
const P = 'participant.behavior.participant-agent';

const acquire = (owner: string, ms: number, onlyExpired = false): LeaseCommand => ({
  type: 'AcquireLease',
  participant_address: P,
  owner,
  onlyExpired,
  now: at(ms),
  duration_ms: 1000,
});

const run = (commands: readonly LeaseCommand[]): LeaseState => {
  let state = initialLeaseState();
  for (const command of commands) {
    const decision = decideLease(command, state);
    if (decision.kind === 'decided') for (const event of decision.events) state = evolveLease(state, event);
  }
  return state;
};

describe('the scheduler lease decider', () => {
  it('gives a free lease to the first engine and refuses another until it expires', () => {
    const held = run([acquire('a', 0)]);
    expect(held).toEqual({ status: 'held', owner: 'a', expiresAtMs: T0 + 1000 });
    expect(decideLease(acquire('b', 999), held)).toEqual({
      kind: 'refused',
      refusal: { code: 'lease_held', owner: 'a', expires_at: at(1000) },
    });
    const taken = decideLease(acquire('b', 1000), held);
    expect(taken).toMatchObject({ kind: 'decided', events: [{ type: 'LeaseAcquired', owner: 'b', taken_from: 'a', expires_at: at(2000) }] });
  });

  it('renews for its owner only, and a renewal pushes the expiry out', () => {
    const renewed = run([acquire('a', 0), { type: 'RenewLease', owner: 'a', now: at(500), duration_ms: 1000 }]);
    expect(renewed).toEqual({ status: 'held', owner: 'a', expiresAtMs: T0 + 1500 });
    expect(decideLease({ type: 'RenewLease', owner: 'b', now: at(600), duration_ms: 1000 }, renewed)).toMatchObject({
      kind: 'refused',
      refusal: { code: 'lease_not_held', owner: 'a' },
    });
    expect(decideLease(acquire('b', 1200), renewed).kind).toBe('refused');
  });

  it('takes a participant outside the claims only once its lease expired, never while free or released', () => {
    expect(decideLease(acquire('b', 0, true), initialLeaseState())).toMatchObject({ kind: 'refused', refusal: { reason: 'free_from_start' } });
    const released = run([acquire('a', 0), { type: 'ReleaseLease', owner: 'a', now: at(10) }]);
    expect(decideLease(acquire('b', 20, true), released)).toMatchObject({ kind: 'refused', refusal: { reason: 'released' } });
    expect(decideLease(acquire('b', 20), released).kind).toBe('decided');
    expect(decideLease(acquire('b', 1000, true), run([acquire('a', 0)])).kind).toBe('decided');
  });

  it('holds with a margin: the owner stops counting on its lease before it expires', () => {
    const held = run([acquire('a', 0)]);
    expect(holdsLease(held, 'a', T0 + 600, 300)).toBe(true);
    expect(holdsLease(held, 'a', T0 + 700, 300)).toBe(false);
    expect(holdsLease(held, 'b', T0, 0)).toBe(false);
  });

  it('never lets two owners hold one lease at one moment, over any commands of two engines', () => {
    const command = fc.record({
      kind: fc.constantFrom('acquire', 'renew', 'release'),
      owner: fc.constantFrom('a', 'b'),
      step: fc.integer({ min: 0, max: 700 }),
      onlyExpired: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        let state = initialLeaseState();
        let now = 0;
        /** Each owner's hold as [from, until) in ms. */
        const holds: Array<{ owner: string; from: number; until: number }> = [];
        for (const c of commands) {
          now += c.step;
          const next: LeaseCommand =
            c.kind === 'acquire'
              ? acquire(c.owner, now, c.onlyExpired)
              : c.kind === 'renew'
                ? { type: 'RenewLease', owner: c.owner, now: at(now), duration_ms: 1000 }
                : { type: 'ReleaseLease', owner: c.owner, now: at(now) };
          const decision = decideLease(next, state);
          if (decision.kind === 'refused') continue;
          for (const event of decision.events) {
            state = evolveLease(state, event);
            const last = holds[holds.length - 1];
            if (event.type === 'LeaseReleased' && last !== undefined) last.until = Math.min(last.until, now);
            if (event.type === 'LeaseRenewed' && last !== undefined) last.until = Date.parse(event.expires_at) - T0;
            if (event.type === 'LeaseAcquired') holds.push({ owner: event.owner, from: now, until: Date.parse(event.expires_at) - T0 });
          }
        }
        for (let i = 1; i < holds.length; i++) {
          const previous = holds[i - 1]!;
          const next = holds[i]!;
          if (previous.owner !== next.owner) expect(next.from).toBeGreaterThanOrEqual(previous.until);
        }
      }),
    );
  });
});
