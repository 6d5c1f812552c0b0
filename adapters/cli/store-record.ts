import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../files/write-atomically';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeValidationErrors } from '../../domain/invocation';

/**
 * `store.json` in a data directory: which store its views and job file belong to (the id the store
 * holds in its identity stream) and the last position a writer saw in it. Positions are decimal text,
 * since they outgrow a JSON number on EventStoreDB.
 */
export const STORE_RECORD_FILE = 'store.json';

const StoreRecordCodec = t.type({
  store_id: t.string,
  store_kind: t.string,
  last_position: t.union([t.null, t.string]),
});
export type StoreRecord = t.TypeOf<typeof StoreRecordCodec>;

export type StoreRecordRead =
  | { readonly kind: 'found'; readonly record: StoreRecord; readonly lastPosition: bigint | undefined }
  | { readonly kind: 'absent' }
  | { readonly kind: 'invalid'; readonly message: string };

const POSITION = /^\d{1,40}$/;

export const readStoreRecord = (dataDir: string): StoreRecordRead => {
  const path = join(dataDir, STORE_RECORD_FILE);
  if (!existsSync(path)) return { kind: 'absent' };
  try {
    const decoded = StoreRecordCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
    if (isLeft(decoded)) return { kind: 'invalid', message: `${path}: ${describeValidationErrors(decoded.left)}` };
    const position = decoded.right.last_position;
    if (position !== null && !POSITION.test(position)) {
      return { kind: 'invalid', message: `${path}: expected decimal digits at last_position, got '${position.slice(0, 40)}'` };
    }
    return { kind: 'found', record: decoded.right, lastPosition: position === null ? undefined : BigInt(position) };
  } catch (error) {
    return { kind: 'invalid', message: `${path}: ${(error as Error).message}` };
  }
};

/** Replaced whole, so a reader never sees half a record. */
export const writeStoreRecord = (dataDir: string, record: StoreRecord): void => {
  writeFileAtomically(join(dataDir, STORE_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
};
