/**
 * Connections one engine process opens at most (the LISTEN connection comes on top). Appends take
 * turns on the server, so more connections serve reads and checkpoints, not appends.
 */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;
