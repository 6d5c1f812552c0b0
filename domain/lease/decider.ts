import type { LeaseEvent } from './events';

/**
 * One participant's scheduler lease, decided purely: the clock reading comes in with each command.
 * A lease is held until its expiry; another engine may take it only after that (or once released).
 * The lease stream's expected revision makes every decision exclusive: of two engines deciding on the
 * same state, one append wins and the other re-reads and decides again.
 */
export type LeaseState =
  | { readonly status: 'free'; readonly everHeld: boolean }
  | { readonly status: 'held'; readonly owner: string; readonly expiresAtMs: number };

export const initialLeaseState = (): LeaseState => ({ status: 'free', everHeld: false });

export interface AcquireLease {
  readonly type: 'AcquireLease';
  readonly participant_address: string;
  readonly owner: string;
  /** Taken only if it was held before and expired (another engine died), never while free from the start. */
  readonly onlyExpired: boolean;
  readonly now: string;
  readonly duration_ms: number;
}

export interface RenewLease {
  readonly type: 'RenewLease';
  readonly owner: string;
  readonly now: string;
  readonly duration_ms: number;
}

export interface ReleaseLease {
  readonly type: 'ReleaseLease';
  readonly owner: string;
  readonly now: string;
}

export type LeaseCommand = AcquireLease | RenewLease | ReleaseLease;

export type LeaseRefusal =
  | { readonly code: 'lease_held'; readonly owner: string; readonly expires_at: string }
  | { readonly code: 'lease_not_taken'; readonly reason: 'free_from_start' | 'released' }
  | { readonly code: 'lease_not_held'; readonly owner: string | null };

export type LeaseDecision = { readonly kind: 'decided'; readonly events: readonly LeaseEvent[] } | { readonly kind: 'refused'; readonly refusal: LeaseRefusal };

const expiryOf = (now: string, durationMs: number): string => new Date(Date.parse(now) + durationMs).toISOString();

const acquire = (command: AcquireLease, state: LeaseState): LeaseDecision => {
  const nowMs = Date.parse(command.now);
  const expires_at = expiryOf(command.now, command.duration_ms);
  if (state.status === 'held') {
    if (state.owner === command.owner) {
      return { kind: 'decided', events: [{ type: 'LeaseRenewed', owner: command.owner, expires_at, at: command.now }] };
    }
    if (nowMs < state.expiresAtMs) {
      return { kind: 'refused', refusal: { code: 'lease_held', owner: state.owner, expires_at: new Date(state.expiresAtMs).toISOString() } };
    }
  } else if (command.onlyExpired) {
    return { kind: 'refused', refusal: { code: 'lease_not_taken', reason: state.everHeld ? 'released' : 'free_from_start' } };
  }
  const taken_from = state.status === 'held' ? state.owner : null;
  return {
    kind: 'decided',
    events: [{ type: 'LeaseAcquired', participant_address: command.participant_address, owner: command.owner, expires_at, taken_from, at: command.now }],
  };
};

/**
 * Renewal is accepted while the lease is the owner's, even past its expiry: no other engine took it
 * (its LeaseAcquired would be in the stream), so the owner never lost it.
 */
const renew = (command: RenewLease, state: LeaseState): LeaseDecision =>
  state.status === 'held' && state.owner === command.owner
    ? { kind: 'decided', events: [{ type: 'LeaseRenewed', owner: command.owner, expires_at: expiryOf(command.now, command.duration_ms), at: command.now }] }
    : { kind: 'refused', refusal: { code: 'lease_not_held', owner: state.status === 'held' ? state.owner : null } };

const release = (command: ReleaseLease, state: LeaseState): LeaseDecision =>
  state.status === 'held' && state.owner === command.owner
    ? { kind: 'decided', events: [{ type: 'LeaseReleased', owner: command.owner, at: command.now }] }
    : { kind: 'refused', refusal: { code: 'lease_not_held', owner: state.status === 'held' ? state.owner : null } };

export const decideLease = (command: LeaseCommand, state: LeaseState): LeaseDecision => {
  switch (command.type) {
    case 'AcquireLease':
      return acquire(command, state);
    case 'RenewLease':
      return renew(command, state);
    case 'ReleaseLease':
      return release(command, state);
  }
};

export const evolveLease = (state: LeaseState, event: LeaseEvent): LeaseState => {
  switch (event.type) {
    case 'LeaseAcquired':
    case 'LeaseRenewed':
      return { status: 'held', owner: event.owner, expiresAtMs: Date.parse(event.expires_at) };
    case 'LeaseReleased':
      return { status: 'free', everHeld: state.status === 'held' || state.everHeld };
  }
};

export const leaseDecider = { decide: decideLease, evolve: evolveLease, initialState: initialLeaseState };

/** Whether `owner` holds the lease at `nowMs` with at least `marginMs` left before it expires. */
export const holdsLease = (state: LeaseState, owner: string, nowMs: number, marginMs: number): boolean =>
  state.status === 'held' && state.owner === owner && nowMs + marginMs < state.expiresAtMs;
