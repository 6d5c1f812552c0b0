import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * EventStoreDB requires UUID event ids; the port allows any string. A non-UUID id maps to a name-based
 * UUID (version 5 layout over SHA-1), so the same id always maps to the same UUID and the server's own
 * idempotency check applies. The original id travels in the event's metadata.
 */
export const toEsdbEventId = (id: string): string => {
  if (UUID.test(id)) return id.toLowerCase();
  const hash = createHash('sha1').update('raes-event-id:').update(id).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};
