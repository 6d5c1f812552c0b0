import type { JsonObject } from '../../../domain/ports/event-store';

/** What the `metadata` column holds: JSON text, a link's bytes, or nothing. */
export type MetadataColumn = string | Buffer | null;

/** Encodes metadata texts into column values; a column value it returns is valid until its next call. */
export declare class MetadataColumnWriter {
  columnOf(text: string | null): MetadataColumn;
}

export declare const metadataOfColumn: (column: MetadataColumn) => JsonObject | undefined;
