/** What a CLI step builds, or the exit code and message it fails with. */
export type Built<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly exit: number; readonly message: string };

export const fail = <T>(exit: number, message: string): Built<T> => ({ ok: false, exit, message });
