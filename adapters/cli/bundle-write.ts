import { sign, type KeyObject } from 'node:crypto';
import type { JsonObject } from '../../domain/ports/event-store';
import { BUNDLE_FORMAT, chainHeads, contentDigest, type Bundle, type BundleContent, type BundleEvent } from '../../domain/integrity/bundle';
import { fail, type Built } from './engine';
import { EXIT_INVALID } from './io';
import { writeExport } from './export-history';
import type { ExportSink } from './export-sink';
import { publicKeySha256 } from './signing-keys';
import type { Workspace } from './workspace';

/**
 * A signed bundle of the whole store (docs/integrity.md, signed bundles). Unlike a plain export it is
 * held in memory while it is built: its digest is taken over the canonical JSON of all of it.
 */

const PAGE = 2000;

/** Collects the text of the `json` export so it can be signed with the rest. */
const textSink = (): ExportSink & { readonly text: () => string } => {
  const parts: string[] = [];
  return { write: async (text) => void parts.push(text), finish: async () => undefined, abandon: async () => undefined, text: () => parts.join('') };
};

const storedEvents = async (workspace: Workspace): Promise<Built<readonly BundleEvent[]>> => {
  const events: BundleEvent[] = [];
  let after: bigint | undefined;
  for (;;) {
    const read = await workspace.store.readAll({ ...(after === undefined ? {} : { after }), maxCount: PAGE });
    if (read.kind === 'storage_failure') return fail(EXIT_INVALID, `the event store could not be read: ${read.reason}; check that it can be read, then export again`);
    for (const event of read.events) {
      events.push({ position: event.position.toString(), stream: event.stream, revision: event.revision.toString(), type: event.type, data: event.data, metadata: event.metadata ?? null });
    }
    const last = read.events[read.events.length - 1];
    if (last === undefined || read.events.length < PAGE) return { ok: true, value: events };
    after = last.position;
  }
};

export const buildBundle = async (workspace: Workspace, key: KeyObject, publicKey: KeyObject, createdAt: string): Promise<Built<Bundle>> => {
  const sink = textSink();
  const exported = await writeExport(workspace, { format: 'json', generatedAt: createdAt }, sink);
  if (!exported.ok) return exported;
  const events = await storedEvents(workspace);
  if (!events.ok) return events;
  const content: BundleContent = {
    bundle_format: BUNDLE_FORMAT,
    created_at: createdAt,
    history: JSON.parse(sink.text()) as JsonObject,
    events: events.value,
    chain_heads: chainHeads(events.value),
  };
  const digest = contentDigest(content);
  const value = sign(null, Buffer.from(digest, 'utf8'), key).toString('base64');
  return { ok: true, value: { ...content, content_digest: digest, signature: { algorithm: 'ed25519', public_key_sha256: publicKeySha256(publicKey), value } } };
};
