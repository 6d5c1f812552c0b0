import * as t from 'io-ts';

/**
 * A participant's scheduler lease: which engine runs the participant, until when. Each event carries
 * the expiry its writer computed from its own clock (ISO time), so a reader's clock judges it.
 */
export const LeaseAcquiredCodec = t.type({
  type: t.literal('LeaseAcquired'),
  participant_address: t.string,
  owner: t.string,
  expires_at: t.string,
  /** The owner the lease was taken from because its lease had expired (null: it was free). */
  taken_from: t.union([t.string, t.null]),
  at: t.string,
});

export const LeaseRenewedCodec = t.type({
  type: t.literal('LeaseRenewed'),
  owner: t.string,
  expires_at: t.string,
  at: t.string,
});

export const LeaseReleasedCodec = t.type({
  type: t.literal('LeaseReleased'),
  owner: t.string,
  at: t.string,
});

export const LeaseEventCodec = t.union([LeaseAcquiredCodec, LeaseRenewedCodec, LeaseReleasedCodec]);
export type LeaseEvent = t.TypeOf<typeof LeaseEventCodec>;
export type LeaseAcquired = t.TypeOf<typeof LeaseAcquiredCodec>;

export const LEASE_EVENT_TYPES: Record<LeaseEvent['type'], true> = { LeaseAcquired: true, LeaseRenewed: true, LeaseReleased: true };
