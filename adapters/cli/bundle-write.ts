import { createHash, sign, type KeyObject } from 'node:crypto';
import { canonicalJson, jsonString } from '../../domain/integrity/canonical-json';
import {
  BUNDLE_FORMAT,
  ChainHeadTracker,
  CONTENT_BEFORE_HISTORY,
  CONTENT_END,
  contentEventSeparator,
  contentTextBeforeEvents,
  type BundleEvent,
  type BundleSignature,
} from '../../domain/integrity/bundle';
import type { JsonValue, RecordedEvent } from '../../domain/ports/event-store';
import { fail, type Built } from './engine';
import { EXIT_INVALID } from './io';
import { writeExport } from './export-history';
import type { ExportSink } from './export-sink';
import { publicKeySha256 } from './signing-keys';
import { TextSpool } from './spool';
import type { Workspace } from './workspace';

/**
 * A signed bundle of the whole store (docs/integrity.md, signed bundles), written as it is read: the
 * file is the canonical JSON of the content (the text its digest is taken over) with the digest and
 * the signature after it. Memory holds a page of events, one history document and each stream's head,
 * never the bundle: the history is rendered first into a temporary file, so that the events, read
 * after it, hold every event it was rendered from.
 */

const PAGE = 2000;

export interface BundleWritten {
  readonly events: number;
  readonly streams: number;
}

const bundleEventOf = (event: RecordedEvent): BundleEvent => ({
  position: event.position.toString(),
  stream: event.stream,
  revision: event.revision.toString(),
  type: event.type,
  data: event.data,
  metadata: event.metadata ?? null,
});

const unreadable = (reason: string): Built<never> => fail(EXIT_INVALID, `the event store could not be read: ${reason}; check that it can be read, then export again`);

/** Each page of stored events up to position `through` (to the end when undefined); the last position visited. */
const forEachPage = async (
  workspace: Workspace,
  through: bigint | undefined,
  visit: (events: readonly BundleEvent[]) => Promise<void> | void,
): Promise<Built<bigint | undefined>> => {
  let after: bigint | undefined;
  let visited: bigint | undefined;
  for (;;) {
    const read = await workspace.store.readAll({ ...(after === undefined ? {} : { after }), maxCount: PAGE });
    if (read.kind === 'storage_failure') return unreadable(read.reason);
    const page = through === undefined ? read.events : read.events.filter((event) => event.position <= through);
    if (page.length > 0) {
      await visit(page.map(bundleEventOf));
      visited = page[page.length - 1]!.position;
    }
    const last = read.events[read.events.length - 1];
    if (last === undefined || read.events.length < PAGE || page.length < read.events.length) return { ok: true, value: visited };
    after = last.position;
  }
};

/** An export sink into a temporary file. */
const spoolSink = (spool: TextSpool): ExportSink => ({ write: async (text) => spool.write(text), finish: async () => undefined, abandon: async () => undefined });

export const writeBundle = async (
  workspace: Workspace,
  key: KeyObject,
  publicKey: KeyObject,
  createdAt: string,
  sink: ExportSink,
  onProgress?: (line: string) => void,
): Promise<Built<BundleWritten>> => {
  const history = new TextSpool();
  try {
    const exported = await writeExport(workspace, { format: 'canonical', generatedAt: createdAt, ...(onProgress === undefined ? {} : { onProgress }) }, spoolSink(history));
    if (!exported.ok) return exported;

    const heads = new ChainHeadTracker();
    let counted = 0;
    const headsRead = await forEachPage(workspace, undefined, (page) => {
      for (const event of page) heads.add(event);
      counted += page.length;
    });
    if (!headsRead.ok) return headsRead;

    const digest = createHash('sha256');
    const content = async (text: string): Promise<void> => {
      digest.update(text, 'utf8');
      await sink.write(text);
    };
    await content(contentTextBeforeEvents(BUNDLE_FORMAT, heads.list() as unknown as JsonValue, createdAt));
    let written = 0;
    // The events the heads were taken over: one appended since (the store is live) is left out.
    const eventsRead = headsRead.value === undefined ? undefined : await forEachPage(workspace, headsRead.value, async (page) => {
      let text = '';
      for (const event of page) {
        text += `${contentEventSeparator(written)}${canonicalJson(event as unknown as JsonValue)}`;
        written += 1;
      }
      await content(text);
      if (onProgress !== undefined && (written % 100_000 < PAGE || written === counted)) onProgress(`export: stored events ${written}/${counted}`);
    });
    if (eventsRead !== undefined && !eventsRead.ok) return eventsRead;
    await content(CONTENT_BEFORE_HISTORY);
    for (const chunk of history.chunks()) await content(chunk);
    // The signature's members follow in the file, inside the same object: the content's own end is only digested.
    digest.update(CONTENT_END, 'utf8');

    const contentDigest = `sha256:${digest.digest('hex')}`;
    const signature: BundleSignature = { algorithm: 'ed25519', public_key_sha256: publicKeySha256(publicKey), value: sign(null, Buffer.from(contentDigest, 'utf8'), key).toString('base64') };
    await sink.write(`,"content_digest":${jsonString(contentDigest)},"signature":${canonicalJson(signature as unknown as JsonValue)}}\n`);
    return { ok: true, value: { events: written, streams: heads.streams } };
  } finally {
    history.dispose();
  }
};
