import { createPrivateKey, createPublicKey, generateKeyPairSync, hash, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeFolder, pathKind } from '../files/make-folder';

/**
 * The Ed25519 keys that sign bundles: PEM files (PKCS#8 private, SPKI public), the private one readable
 * by its owner only. Nothing here overwrites a key: a lost signing key makes every bundle it signed
 * unverifiable against a new one.
 */

export const PRIVATE_KEY_FILE = 'raes-signing-key.pem';
export const PUBLIC_KEY_FILE = 'raes-signing-key.pub.pem';

export type Loaded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export const generateSigningKeys = (dir: string): Loaded<{ readonly privateKey: string; readonly publicKey: string }> => {
  const folder = resolve(dir);
  if (pathKind(folder) === 'other') return { ok: false, message: `--out ${dir} is a file, not a folder; name a folder for the two key files` };
  // Readable by its owner only, as the private key in it.
  const made = makeFolder(folder, 0o700);
  if (!made.ok) return { ok: false, message: `--out ${dir}: the folder cannot be created (${made.reason}); name a folder you can write` };
  const privateKey = join(folder, PRIVATE_KEY_FILE);
  const publicKey = join(folder, PUBLIC_KEY_FILE);
  for (const file of [privateKey, publicKey]) {
    if (existsSync(file)) return { ok: false, message: `${file} exists already; keys are never overwritten (move it away, or name another folder with --out)` };
  }
  const pair = generateKeyPairSync('ed25519');
  // `wx`: created here or not at all, so a file that appeared meanwhile is not replaced either.
  writeFileSync(privateKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  writeFileSync(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644, flag: 'wx' });
  return { ok: true, value: { privateKey, publicKey } };
};

const readKey = (file: string, what: string, parse: (pem: string) => KeyObject): Loaded<KeyObject> => {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read the ${what} ${file}: ${(error as Error).message}` };
  }
  try {
    const key = parse(pem);
    if (key.asymmetricKeyType !== 'ed25519') return { ok: false, message: `${file} is a ${key.asymmetricKeyType ?? 'symmetric'} key, not an Ed25519 ${what}; make one with \`raes-tools keys generate\`` };
    return { ok: true, value: key };
  } catch {
    return { ok: false, message: `${file} is not a PEM ${what}; make one with \`raes-tools keys generate\`` };
  }
};

export const readPrivateKey = (file: string): Loaded<KeyObject> => readKey(file, 'private key', (pem) => createPrivateKey(pem));

export const readPublicKey = (file: string): Loaded<KeyObject> => readKey(file, 'public key', (pem) => createPublicKey(pem));

/** What a bundle names its key by: the sha256 of the public key's DER. */
export const publicKeySha256 = (key: KeyObject): string => hash('sha256', key.export({ type: 'spki', format: 'der' }), 'hex');
