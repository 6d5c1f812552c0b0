import { createHash, verify, type KeyObject } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { canonicalJson, jsonString } from '../../domain/integrity/canonical-json';
import {
  BUNDLE_FORMAT,
  BundleEventCheck,
  CONTENT_BEFORE_HISTORY,
  CONTENT_END,
  CONTENT_MEMBERS,
  contentEventSeparator,
  contentTextBeforeEvents,
  type BundleEvent,
  type BundleFindingCode,
  type BundleSignature,
  type ChainHead,
} from '../../domain/integrity/bundle';
import { describeValidationErrors } from '../../domain/invocation/decode-errors';
import type { JsonValue } from '../../domain/ports/event-store';
import { historyValidators, schemaError } from './bundle-schemas';
import { JSON_SECTIONS, type ExportKind } from './export-layout';
import { forEachItem, readRange, type ByteRange } from './json-file-items';
import { JsonFramingError } from './json-items';
import { publicKeySha256 } from './signing-keys';

/**
 * The offline check of a signed bundle (docs/integrity.md, signed bundles), in this order: its shape,
 * its chains and heads, its content digest, its signature, then its history against the schemas. The
 * first failure is the finding: a change to an event shows as the chain break it makes.
 *
 * The bundle is read from its file an event and a history document at a time, in the order its
 * content's canonical JSON names its members, and its digest is taken as it is read: a bundle of any
 * size is checked in the memory of its largest document and its streams' heads.
 */

const Decimal = t.refinement(t.string, (text) => /^(0|[1-9][0-9]*)$/.test(text), 'decimal string');

const EventCodec = t.type({ position: Decimal, stream: t.string, revision: Decimal, type: t.string, data: t.unknown, metadata: t.union([t.UnknownRecord, t.null]) });
const ChainHeadsCodec = t.array(t.type({ stream: t.string, revision: Decimal, digest: t.union([t.string, t.null]) }));
const SignatureCodec = t.type({ algorithm: t.literal('ed25519'), public_key_sha256: t.string, value: t.string });

const SIGNATURE_MEMBERS = ['content_digest', 'signature'] as const;
const SECTION_KINDS: readonly ExportKind[] = ['behavior_history_event', 'participant_history_view', 'operation_status'];

export type BundleCheckCode = BundleFindingCode | 'bundle_malformed' | 'signature_key_mismatch' | 'signature_invalid' | 'schema_invalid';

export type BundleVerdict =
  | { readonly ok: true; readonly events: number; readonly chainedEvents: number; readonly streams: number; readonly documents: number }
  | { readonly ok: false; readonly code: BundleCheckCode; readonly message: string };

const failed = (code: BundleCheckCode, message: string): BundleVerdict => ({ ok: false, code, message });

/** Thrown while reading: the bundle is not one this format describes. */
class Malformed extends Error {}

const notJson = (detail: string): Malformed => new Malformed(`the bundle is not JSON (${detail}); pass the file \`raes-tools export --bundle\` wrote`);
const notBundle = (detail: string): Malformed => new Malformed(`the bundle is not a ${BUNDLE_FORMAT} bundle: ${detail}`);

const parse = (bytes: Buffer, what: string): unknown => {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw notJson(`${what}: ${(error as Error).message}`);
  }
};

const decoded = <A>(codec: t.Decoder<unknown, A>, value: unknown, what: string): A => {
  const result = codec.decode(value);
  if (isLeft(result)) throw notBundle(`${what}: ${describeValidationErrors(result.left)}`);
  return result.right;
};

/** The members of the object in `range`, by name; a name twice is refused. */
const membersOf = (fd: number, range: ByteRange, what: string): Map<string, ByteRange> => {
  const members = new Map<string, ByteRange>();
  let container: 'array' | 'object';
  try {
    container = forEachItem(fd, range, false, (item) => {
      if (members.has(item.name!)) throw notBundle(`${what} names the member ${JSON.stringify(item.name)} twice`);
      members.set(item.name!, { start: item.start, end: item.end });
    });
  } catch (error) {
    if (error instanceof JsonFramingError) throw notJson(`${what}: ${error.message}`);
    throw error;
  }
  if (container !== 'object') throw notBundle(`${what} is not an object`);
  return members;
};

const startsWith = (fd: number, range: ByteRange, byte: string): boolean => range.end > range.start && readRange(fd, { start: range.start, end: range.start + 1 }).toString('latin1') === byte;

/** Each element of the list in `range`, parsed, with its index. */
const eachElement = (fd: number, range: ByteRange, what: string, visit: (value: unknown, index: number) => void): void => {
  if (!startsWith(fd, range, '[')) throw notBundle(`${what} is not a list`);
  let index = 0;
  try {
    forEachItem(fd, range, true, (_item, bytes) => {
      visit(parse(bytes!, `${what}[${index}]`), index);
      index += 1;
    });
  } catch (error) {
    if (error instanceof JsonFramingError) throw notJson(`${what}: ${error.message}`);
    throw error;
  }
};

const optional = <A, B>(value: A | undefined, then: (value: A) => B): B | undefined => (value === undefined ? undefined : then(value));

/** The names of an object's members in canonical order (UTF-16 code units, as Array.prototype.sort compares). */
const canonicalOrder = (names: Iterable<string>): string[] => [...names].sort();

export const verifyBundle = (fd: number, size: number, publicKey: KeyObject): BundleVerdict => {
  const check = new BundleEventCheck();
  const schemaErrors: { [K in ExportKind]?: string } = {};
  let documents = 0;
  let claimedDigest: string;
  let signature: BundleSignature;
  let heads: readonly ChainHead[];
  const digest = createHash('sha256');
  try {
    const top = membersOf(fd, { start: 0, end: size }, 'the bundle');
    for (const name of [...CONTENT_MEMBERS, ...SIGNATURE_MEMBERS]) if (!top.has(name)) throw notBundle(`it has no member ${name}`);
    for (const name of top.keys()) {
      if (!(CONTENT_MEMBERS as readonly string[]).includes(name) && !(SIGNATURE_MEMBERS as readonly string[]).includes(name)) throw notBundle(`it has a member ${JSON.stringify(name)} no bundle has`);
    }
    const whole = (name: string): unknown => parse(readRange(fd, top.get(name)!), name);
    const format = decoded(t.literal(BUNDLE_FORMAT), whole('bundle_format'), 'bundle_format');
    const createdAt = decoded(t.string, whole('created_at'), 'created_at');
    const headsValue = whole('chain_heads');
    heads = decoded(ChainHeadsCodec, headsValue, 'chain_heads');
    claimedDigest = decoded(t.string, whole('content_digest'), 'content_digest');
    signature = decoded(SignatureCodec, whole('signature'), 'signature');

    const history = membersOf(fd, top.get('history')!, 'history');
    for (const kind of SECTION_KINDS) if (!history.has(JSON_SECTIONS[kind])) throw notBundle(`history has no member ${JSON_SECTIONS[kind]}`);

    // The content's canonical JSON, as export --bundle writes it (CONTENT_MEMBERS in order).
    digest.update(contentTextBeforeEvents(format, headsValue as JsonValue, createdAt), 'utf8');
    eachElement(fd, top.get('events')!, 'events', (value, index) => {
      check.add(decoded(EventCodec, value, `events[${index}]`) as BundleEvent);
      digest.update(`${contentEventSeparator(index)}${canonicalJson(value as JsonValue)}`, 'utf8');
    });
    // The history's canonical JSON, an object whose members are taken in the order of their names.
    digest.update(`${CONTENT_BEFORE_HISTORY}{`, 'utf8');
    const validators = historyValidators();
    // Each document's first schema error as its finding, for each kind.
    const sections = new Map<string, { readonly kind: ExportKind; readonly finding: (value: unknown, index: number) => string | undefined }>([
      [JSON_SECTIONS.behavior_history_event, { kind: 'behavior_history_event', finding: (value, index) => optional(schemaError(validators.eventStream, [value]), (error) => `the behavior history event stream does not conform to its schema ${error.replace(/^at \/0/, `at /${index}`)}`) }],
      [JSON_SECTIONS.participant_history_view, { kind: 'participant_history_view', finding: (value, index) => optional(schemaError(validators.historyView, value), (error) => `participant history view ${index} does not conform to its schema ${error}`) }],
      [JSON_SECTIONS.operation_status, { kind: 'operation_status', finding: (value, index) => optional(schemaError(validators.operationStatus, value), (error) => `operation status ${index} does not conform to its schema ${error}`) }],
    ]);
    canonicalOrder(history.keys()).forEach((name, at) => {
      digest.update(`${at === 0 ? '' : ','}${jsonString(name)}:`, 'utf8');
      const section = sections.get(name);
      if (section === undefined) {
        digest.update(canonicalJson(parse(readRange(fd, history.get(name)!), `history.${name}`) as JsonValue), 'utf8');
        return;
      }
      digest.update('[', 'utf8');
      eachElement(fd, history.get(name)!, `history.${name}`, (value, index) => {
        digest.update(`${index === 0 ? '' : ','}${canonicalJson(value as JsonValue)}`, 'utf8');
        documents += 1;
        if (schemaErrors[section.kind] === undefined) schemaErrors[section.kind] = section.finding(value, index);
      });
      digest.update(']', 'utf8');
    });
    digest.update(`}${CONTENT_END}`, 'utf8');
  } catch (error) {
    if (error instanceof Malformed) return failed('bundle_malformed', error.message);
    throw error;
  }

  const finding = check.finding(heads);
  if (finding !== undefined) return failed(finding.code, finding.message);
  const computed = `sha256:${digest.digest('hex')}`;
  if (computed !== claimedDigest) {
    return failed('content_digest_mismatch', `the bundle's content digests to ${computed}, not to the ${claimedDigest} it was signed with: its history or its events were changed`);
  }

  const expectedKey = publicKeySha256(publicKey);
  if (signature.public_key_sha256 !== expectedKey) {
    return failed('signature_key_mismatch', `the bundle was signed with the key whose sha256 is ${signature.public_key_sha256}, not with this public key (${expectedKey}): check with the signer's public key`);
  }
  if (!verify(null, Buffer.from(claimedDigest, 'utf8'), publicKey, Buffer.from(signature.value, 'base64'))) {
    return failed('signature_invalid', 'the signature does not verify with this public key: the bundle was changed after it was signed, or its signature forged');
  }

  for (const kind of SECTION_KINDS) {
    const schemaFinding = schemaErrors[kind];
    if (schemaFinding !== undefined) return failed('schema_invalid', schemaFinding);
  }
  return { ok: true, events: check.events, chainedEvents: check.chainedEvents, streams: heads.length, documents };
};
