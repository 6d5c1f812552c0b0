/**
 * Settings every connection of the store must have from its first query on, sent in the startup
 * packet (`options=-c name=value`) rather than by a `SET` on connect: a `SET` issued when the pool hands
 * out a new client runs beside its first user's query on that one client, which pg deprecates (and
 * warns about on every command). Ours come after any `options` the URL gives, so they win.
 */
export type SessionConnection = { readonly connectionString: string; readonly options?: string };

export const withSessionSettings = (connectionString: string, settings: Readonly<Record<string, string>>): SessionConnection => {
  const ours = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: ours };
  }
  const given = url.searchParams.get('options');
  // The URL's own `options` would override a config field: extend it in the URL instead.
  if (given === null) return { connectionString, options: ours };
  url.searchParams.set('options', `${given} ${ours}`);
  return { connectionString: url.toString() };
};
