import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { storageFailure } from '../../domain/ports/storage-failure';

/**
 * Every store the engine writes says which store it is: the first writer to open it appends one
 * `StoreIdentified` event, with a random id, to this stream. It is an ordinary event, so the check is
 * the same on every store behind the port; no projection reads this stream.
 */
export const STORE_IDENTITY_STREAM = 'store-identity';

export const StoreIdentifiedCodec = t.type({
  type: t.literal('StoreIdentified'),
  store_id: t.string,
  identified_at: t.string,
});

export type StoreIdentityRead = { readonly kind: 'identified'; readonly storeId: string } | { readonly kind: 'unidentified' } | StorageFailure;

export const readStoreIdentity = async (store: EventStore): Promise<StoreIdentityRead> => {
  const read = await store.readStream(STORE_IDENTITY_STREAM, { maxCount: 1 });
  if (read.kind === 'storage_failure') return read;
  const first = read.events[0];
  if (first === undefined) return { kind: 'unidentified' };
  let data: unknown;
  try {
    data = first.data;
  } catch {
    return storageFailure(`the store's identity event (stream '${STORE_IDENTITY_STREAM}') is not JSON: the store is damaged; restore it from a backup`);
  }
  const decoded = StoreIdentifiedCodec.decode(data);
  if (isLeft(decoded)) {
    return storageFailure(`the store's identity event (stream '${STORE_IDENTITY_STREAM}') is not a StoreIdentified event: the store is damaged or not the engine's; restore it from a backup`);
  }
  return { kind: 'identified', storeId: decoded.right.store_id };
};

/** Gives the store `storeId` unless another writer identified it first; answers the id it holds. */
export const identifyStore = async (store: EventStore, storeId: string, at: Date): Promise<StoreIdentityRead> => {
  const data = { type: 'StoreIdentified' as const, store_id: storeId, identified_at: at.toISOString() };
  const appended = await store.append(STORE_IDENTITY_STREAM, [{ id: `store-identified-${storeId}`, type: data.type, data }], { expectedRevision: 'no_stream' });
  if (appended.kind === 'storage_failure') return appended;
  if (appended.kind === 'appended') return { kind: 'identified', storeId };
  return readStoreIdentity(store);
};
