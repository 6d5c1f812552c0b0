/**
 * OTEL_RESOURCE_ATTRIBUTES as the OpenTelemetry specification reads it: `key=value` pairs separated by
 * commas, keys and values percent-decoded (`,` and `=` inside them must be written `%2C` and `%3D`),
 * surrounding spaces dropped, every value a string. Any error discards the whole variable, and the
 * reason says what to fix.
 */
export type ResourceAttributesRead =
  | { readonly kind: 'read'; readonly attributes: Readonly<Record<string, string>> }
  | { readonly kind: 'discarded'; readonly reason: string };

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

export const readResourceAttributes = (text: string | undefined): ResourceAttributesRead => {
  const attributes: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return { kind: 'read', attributes };
  const discarded = (why: string): ResourceAttributesRead => ({
    kind: 'discarded',
    reason: `OTEL_RESOURCE_ATTRIBUTES is ignored: ${why}; write it as key=value,key2=value2, with ',' and '=' inside a key or value percent-encoded (%2C, %3D)`,
  });
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    if (equals < 0) return discarded(`'${entry.trim().slice(0, 60)}' has no '='`);
    const key = decoded(entry.slice(0, equals).trim());
    const value = decoded(entry.slice(equals + 1).trim());
    if (key === undefined || value === undefined) return discarded(`'${entry.trim().slice(0, 60)}' is not valid percent-encoding`);
    if (key === '') return discarded(`'${entry.trim().slice(0, 60)}' has an empty key`);
    attributes[key] = value;
  }
  return { kind: 'read', attributes };
};
