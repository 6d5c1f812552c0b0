import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { chainHeads, contentDigest } from '../../../domain/integrity/bundle';
import { canonicalJson } from '../../../domain/integrity/canonical-json';
import { CHAIN_KEY, chainLink, storedLink } from '../../../domain/integrity/chain';
import { ROLLING_START, SEAL_STREAM, sealRolling } from '../../../domain/integrity/seal';
import type { JsonValue } from '../../../domain/ports/event-store';
import { MANIFEST, ROOT, SCENARIO, cli, cliWithEnv, scratchDir } from './support/cli';

jest.setTimeout(180_000);

type Json = Record<string, unknown>;
interface BundleEvent { position: string; stream: string; revision: string; type: string; data: unknown; metadata: Json | null }

/** A real run on a temp data dir, a real key pair, a real bundle; each tampering is checked by the real `verify`. */
describe('signed bundles: keys generate, export --bundle, verify', () => {
  const dir = scratchDir('bundle');
  const dataDir = join(dir, 'data');
  const keys = join(dir, 'keys');
  const otherKeys = join(dir, 'other-keys');
  const bundleFile = join(dir, 'history.bundle.json');
  let bundle: Json;

  const verifyWith = (file: string, publicKey = join(keys, 'raes-signing-key.pub.pem')) => cli('verify', file, '--public-key', publicKey);
  const tampered = (name: string, change: (copy: Json) => void): string => {
    const copy = JSON.parse(JSON.stringify(bundle)) as Json;
    change(copy);
    const file = join(dir, `${name}.bundle.json`);
    writeFileSync(file, JSON.stringify(copy));
    return file;
  };
  const eventsOf = (copy: Json): BundleEvent[] => copy.events as BundleEvent[];
  /** The bundle's heads, digest and signature made again with the signer's key, as a signer who changed it would. */
  const resign = (changed: Json): Json => {
    changed.chain_heads = chainHeads(changed.events as never);
    const { content_digest: _digest, signature, ...content } = changed;
    const digest = contentDigest(content as never);
    const key = createPrivateKey(readFileSync(join(keys, 'raes-signing-key.pem'), 'utf8'));
    return { ...changed, content_digest: digest, signature: { ...(signature as Json), value: sign(null, Buffer.from(digest, 'utf8'), key).toString('base64') } };
  };
  const written = (name: string, text: string): string => {
    const file = join(dir, `${name}.bundle.json`);
    writeFileSync(file, text);
    return file;
  };

  beforeAll(() => {
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-bundle', '--data-dir', dataDir, '--json').status).toBe(0);
    for (const folder of [keys, otherKeys]) {
      mkdirSync(folder);
      expect(cli('keys', 'generate', '--out', folder).status).toBe(0);
    }
    const exported = cli('export', '--bundle', '--key', join(keys, 'raes-signing-key.pem'), '--data-dir', dataDir, '--out', bundleFile);
    expect(exported.stderr).toContain('signed');
    expect(exported.status).toBe(0);
    bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as Json;
  });

  it('creates a missing key folder for its owner only, and refuses a file named as the folder', () => {
    const fresh = join(dir, 'new', 'keys');
    expect(cli('keys', 'generate', '--out', fresh).status).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(join(fresh, 'raes-signing-key.pub.pem')).isFile()).toBe(true);
    const file = written('not-a-folder', '');
    const refused = cli('keys', 'generate', '--out', file);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is a file, not a folder');
    // Under a pseudo file system, where a recursive mkdir would retry forever: a refusal at once.
    const underProc = cli('keys', 'generate', '--out', '/proc/raes-tools-keys/signing');
    expect(underProc.status).toBe(1);
    expect(underProc.stderr).toContain('--out /proc/raes-tools-keys/signing: the folder cannot be created (');
  });

  it('writes the private key for its owner only and never overwrites a key', () => {
    expect(statSync(join(keys, 'raes-signing-key.pem')).mode & 0o777).toBe(0o600);
    const before = readFileSync(join(keys, 'raes-signing-key.pem'), 'utf8');
    const again = cli('keys', 'generate', '--out', keys);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('never overwritten');
    expect(readFileSync(join(keys, 'raes-signing-key.pem'), 'utf8')).toBe(before);
  });

  it('bundles the RAES history with the stored events and their chain heads', () => {
    const history = bundle.history as Json;
    expect((history.behavior_history_event_stream as unknown[]).length).toBeGreaterThan(0);
    expect((history.participant_history_views as unknown[]).length).toBe(1);
    expect((history.operation_statuses as unknown[]).length).toBeGreaterThan(0);
    const events = eventsOf(bundle);
    const heads = bundle.chain_heads as { stream: string; revision: string }[];
    expect(heads.length).toBe(new Set(events.map((event) => event.stream)).size);
    expect(bundle.content_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('writes the canonical JSON of its content, the text its digest is taken over, then the digest and signature', () => {
    const text = readFileSync(bundleFile, 'utf8');
    const { content_digest: digest, signature: _signature, ...content } = bundle;
    expect(contentDigest(content as never)).toBe(digest);
    const canonical = canonicalJson(content as JsonValue);
    expect(text.startsWith(`${canonical.slice(0, -1)},"content_digest":`)).toBe(true);
  });

  it('verifies a bundle whatever its layout: pretty-printed, its members in another order', () => {
    const reordered = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(reordered) : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).reverse().map(([name, member]) => [name, reordered(member)])) : value;
    const run = verifyWith(written('pretty', JSON.stringify(reordered(bundle), null, 2)));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('refuses a member named twice and a member no bundle has', () => {
    const text = readFileSync(bundleFile, 'utf8').trimEnd();
    const twice = verifyWith(written('twice', `${text.slice(0, -1)},"created_at":"2020-01-01T00:00:00.000Z"}`));
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain('FAILED bundle_malformed');
    expect(twice.stderr).toContain('"created_at" twice');
    const extra = verifyWith(written('extra', `${text.slice(0, -1)},"note":"unsigned"}`));
    expect(extra.status).toBe(1);
    expect(extra.stderr).toContain('FAILED bundle_malformed');
    expect(extra.stderr).toContain('"note"');
  });

  it('names the first history document that breaks its schema, in a bundle signed as it is', () => {
    const withStream = JSON.parse(JSON.stringify(bundle)) as Json;
    const stream = (withStream.history as Json).behavior_history_event_stream as Json[];
    expect(stream.length).toBeGreaterThan(2);
    delete stream[2]!.timestamp;
    const streamRun = verifyWith(written('schema-stream', JSON.stringify(resign(withStream))));
    expect(streamRun.status).toBe(1);
    expect(streamRun.stderr).toContain('FAILED schema_invalid');
    expect(streamRun.stderr).toContain('the behavior history event stream does not conform to its schema at /2');
    const withStatus = JSON.parse(JSON.stringify(bundle)) as Json;
    ((withStatus.history as Json).operation_statuses as Json[])[1]!.state = 'no-such-state';
    const statusRun = verifyWith(written('schema-status', JSON.stringify(resign(withStatus))));
    expect(statusRun.status).toBe(1);
    expect(statusRun.stderr).toContain('FAILED schema_invalid');
    expect(statusRun.stderr).toContain('operation status 1 does not conform to its schema');
  });

  it('verifies a good bundle, and reads the key from RAES_SIGNING_KEY too', () => {
    const good = verifyWith(bundleFile);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    expect(good.stdout).toContain('verified');
    const viaEnv = join(dir, 'env.bundle.json');
    expect(cliWithEnv({ RAES_SIGNING_KEY: join(keys, 'raes-signing-key.pem') }, 'export', '--bundle', '--data-dir', dataDir, '--out', viaEnv).status).toBe(0);
    expect(verifyWith(viaEnv).status).toBe(0);
  });

  it('names the edited event when one byte of its data is flipped', () => {
    let place = '';
    const file = tampered('flipped', (copy) => {
      const events = eventsOf(copy);
      const index = events.findIndex((event) => event.type === 'ToolActionAdmitted');
      expect(index).toBeGreaterThanOrEqual(0);
      const text = JSON.stringify(events[index]!.data);
      const at = text.indexOf('call-');
      expect(at).toBeGreaterThan(0);
      events[index]!.data = JSON.parse(`${text.slice(0, at)}C${text.slice(at + 1)}`);
      place = `position ${events[index]!.position}`;
    });
    const run = verifyWith(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED chain_digest_mismatch');
    expect(run.stderr).toContain(place);
  });

  it('verifies a bundle of a store linked in version 1 (written before version 2), and names an edit in it', () => {
    // The engine's bundle rewritten as a version-1 store holds it: every link and seal by the version-1 rule,
    // then its heads, content digest and signature made again with the signer's key.
    const copy = JSON.parse(JSON.stringify(bundle)) as Json;
    const events = eventsOf(copy);
    const heads = new Map<string, string>();
    let sealed = ROLLING_START;
    let unsealed: { position: bigint; digest: string }[] = [];
    for (const event of events) {
      if (event.stream === SEAL_STREAM) {
        const seal = event.data as { through_position: string; rolling_digest: string };
        const covered = unsealed.filter((entry) => entry.position <= BigInt(seal.through_position));
        sealed = sealRolling(1, sealed, covered.map((entry) => entry.digest));
        seal.rolling_digest = sealed;
        unsealed = unsealed.slice(covered.length);
      }
      const link = chainLink(heads.get(event.stream) ?? null, event.stream, Number(event.revision), event.type, event.data as JsonValue, 1);
      event.metadata = { ...event.metadata, [CHAIN_KEY]: storedLink(link) };
      heads.set(event.stream, link.digest);
      unsealed.push({ position: BigInt(event.position), digest: link.digest });
    }
    expect(events.some((event) => event.stream === SEAL_STREAM)).toBe(true);
    const v1 = resign(copy);
    expect(((v1.events as BundleEvent[])[0]!.metadata![CHAIN_KEY] as Json).v).toBe(1);
    const file = join(dir, 'v1.bundle.json');
    writeFileSync(file, JSON.stringify(v1));
    const good = verifyWith(file);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    const python = spawnSync('python3', [join(ROOT, 'clients/python/verify_bundle.py'), file], { encoding: 'utf8' });
    expect(python.stdout).toMatch(/^sound: /);
    expect(python.status).toBe(0);
    // One event's data edited, and the bundle signed again: only its version-1 link tells.
    const edited = JSON.parse(JSON.stringify(v1)) as Json;
    const target = eventsOf(edited).find((event) => event.type === 'ToolActionAdmitted')!;
    target.data = { ...(target.data as Json), tool_call_id: 'another-call' };
    const editedFile = join(dir, 'v1-edited.bundle.json');
    writeFileSync(editedFile, JSON.stringify(resign(edited)));
    const run = verifyWith(editedFile);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED chain_digest_mismatch');
    expect(run.stderr).toContain(`position ${target.position}`);
  });

  it('names the gap when an event is dropped', () => {
    const file = tampered('dropped', (copy) => {
      const events = eventsOf(copy);
      const index = events.findIndex((event) => event.revision === '1');
      events.splice(index, 1);
    });
    const run = verifyWith(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED revision_gap');
  });

  it('names the dropped end of a stream against its chain head', () => {
    const file = tampered('truncated', (copy) => {
      const events = eventsOf(copy);
      const last = events.length - 1;
      events.splice(last, 1);
    });
    const run = verifyWith(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED chain_head_mismatch');
  });

  it('names a chain head whose digest was changed as such, not as a dropped end', () => {
    const file = tampered('head-digest-edited', (copy) => {
      const head = (copy.chain_heads as Json[])[0]!;
      const digest = head.digest as string;
      head.digest = `${digest.slice(0, -2)}${digest.endsWith('AA') ? 'BA' : 'AA'}`;
    });
    const run = verifyWith(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED chain_head_mismatch');
    expect(run.stderr).toContain("its last event's link digest is not the head's");
    expect(run.stderr).not.toContain('events at its end were removed or added');
  });

  it('names a changed history document by its digest', () => {
    const file = tampered('history-edited', (copy) => {
      const statuses = (copy.history as Json).operation_statuses as Json[];
      statuses[0]!.state = 'failed';
    });
    const run = verifyWith(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('FAILED content_digest_mismatch');
  });

  it('refuses another key, and a signature that does not verify', () => {
    const other = verifyWith(bundleFile, join(otherKeys, 'raes-signing-key.pub.pem'));
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('FAILED signature_key_mismatch');
    const forgedFile = tampered('forged', (copy) => {
      const signature = copy.signature as Json;
      const value = Buffer.from(signature.value as string, 'base64');
      value[0] = value[0]! ^ 1;
      signature.value = value.toString('base64');
    });
    const forged = verifyWith(forgedFile);
    expect(forged.status).toBe(1);
    expect(forged.stderr).toContain('FAILED signature_invalid');
  });

  it('gives usage errors exit 2 and no stack trace', () => {
    const noKey = cli('verify', bundleFile);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain('--public-key');
    const noSigningKey = cli('export', '--bundle', '--data-dir', dataDir, '--out', join(dir, 'x.json'));
    expect(noSigningKey.status).toBe(2);
    expect(noSigningKey.stderr).toContain('RAES_SIGNING_KEY');
    const keyWithoutBundle = cli('export', '--key', join(keys, 'raes-signing-key.pem'), '--data-dir', dataDir, '--out', join(dir, 'unsigned.json'));
    expect(keyWithoutBundle.status).toBe(2);
    expect(keyWithoutBundle.stderr).toContain('--key signs a bundle; add --bundle');
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'not a bundle');
    const malformed = verifyWith(notJson);
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toContain('FAILED bundle_malformed');
    for (const run of [noKey, noSigningKey, malformed]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
