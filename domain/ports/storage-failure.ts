import type { StorageFailure } from './event-store';

export const storageFailure = (reason: string): StorageFailure => ({ kind: 'storage_failure', reason });

export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
