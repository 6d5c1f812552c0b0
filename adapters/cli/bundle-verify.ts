import { verify, type KeyObject } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { BUNDLE_FORMAT, checkBundleContent, type Bundle, type BundleFindingCode } from '../../domain/integrity/bundle';
import { describeValidationErrors } from '../../domain/invocation/decode-errors';
import { historyValidators, schemaError } from './bundle-schemas';
import { JSON_SECTIONS } from './export-layout';
import { publicKeySha256 } from './signing-keys';

/**
 * The offline check of a signed bundle (docs/integrity.md, signed bundles), in this order: its shape,
 * its chains and heads, its content digest, its signature, then its history against the schemas. The
 * first failure is the finding: a change to an event shows as the chain break it makes.
 */

const Decimal = t.refinement(t.string, (text) => /^(0|[1-9][0-9]*)$/.test(text), 'decimal string');
const JsonObjectCodec = t.UnknownRecord;

const BundleCodec = t.type({
  bundle_format: t.literal(BUNDLE_FORMAT),
  created_at: t.string,
  history: t.type({
    [JSON_SECTIONS.behavior_history_event]: t.UnknownArray,
    [JSON_SECTIONS.participant_history_view]: t.UnknownArray,
    [JSON_SECTIONS.operation_status]: t.UnknownArray,
  }),
  events: t.array(
    t.type({ position: Decimal, stream: t.string, revision: Decimal, type: t.string, data: t.unknown, metadata: t.union([JsonObjectCodec, t.null]) }),
  ),
  chain_heads: t.array(t.type({ stream: t.string, revision: Decimal, digest: t.union([t.string, t.null]) })),
  content_digest: t.string,
  signature: t.type({ algorithm: t.literal('ed25519'), public_key_sha256: t.string, value: t.string }),
});

export type BundleCheckCode = BundleFindingCode | 'bundle_malformed' | 'signature_key_mismatch' | 'signature_invalid' | 'schema_invalid';

export type BundleVerdict =
  | { readonly ok: true; readonly events: number; readonly streams: number; readonly documents: number }
  | { readonly ok: false; readonly code: BundleCheckCode; readonly message: string };

const failed = (code: BundleCheckCode, message: string): BundleVerdict => ({ ok: false, code, message });

export const verifyBundle = (text: string, publicKey: KeyObject): BundleVerdict => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return failed('bundle_malformed', `the bundle is not JSON (${(error as Error).message}); pass the file \`raes-tools export --bundle\` wrote`);
  }
  const decoded = BundleCodec.decode(parsed);
  if (isLeft(decoded)) return failed('bundle_malformed', `the bundle is not a ${BUNDLE_FORMAT} bundle: ${describeValidationErrors(decoded.left)}`);
  const bundle = decoded.right as unknown as Bundle;

  const finding = checkBundleContent(bundle);
  if (finding !== undefined) return failed(finding.code, finding.message);

  const expectedKey = publicKeySha256(publicKey);
  if (bundle.signature.public_key_sha256 !== expectedKey) {
    return failed('signature_key_mismatch', `the bundle was signed with the key whose sha256 is ${bundle.signature.public_key_sha256}, not with this public key (${expectedKey}): check with the signer's public key`);
  }
  if (!verify(null, Buffer.from(bundle.content_digest, 'utf8'), publicKey, Buffer.from(bundle.signature.value, 'base64'))) {
    return failed('signature_invalid', 'the signature does not verify with this public key: the bundle was changed after it was signed, or its signature forged');
  }

  const validators = historyValidators();
  const history = decoded.right.history;
  const events = history[JSON_SECTIONS.behavior_history_event]!;
  const streamError = schemaError(validators.eventStream, events);
  if (streamError !== undefined) return failed('schema_invalid', `the behavior history event stream does not conform to its schema ${streamError}`);
  const views = history[JSON_SECTIONS.participant_history_view]!;
  for (let i = 0; i < views.length; i++) {
    const error = schemaError(validators.historyView, views[i]);
    if (error !== undefined) return failed('schema_invalid', `participant history view ${i} does not conform to its schema ${error}`);
  }
  const statuses = history[JSON_SECTIONS.operation_status]!;
  for (let i = 0; i < statuses.length; i++) {
    const error = schemaError(validators.operationStatus, statuses[i]);
    if (error !== undefined) return failed('schema_invalid', `operation status ${i} does not conform to its schema ${error}`);
  }
  return { ok: true, events: bundle.events.length, streams: bundle.chain_heads.length, documents: events.length + views.length + statuses.length };
};
