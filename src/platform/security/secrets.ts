import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A random, URL-safe token: 256 bits by default (codes and tokens need at least 128). */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** One-shot `hash` rather than `createHash`: a third of the time, and the API hashes every bearer token. */
export const sha256 = (value: string) => hash('sha256', value, 'base64url');

export const hmac = (key: Buffer, value: string) =>
  createHmac('sha256', key).update(value).digest('base64url');

/** Compares two secrets in constant time, whatever their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ab = hash('sha256', a, 'buffer');
  const bb = hash('sha256', b, 'buffer');
  return timingSafeEqual(ab, bb) && a.length === b.length;
}

/**
 * The platform's own signing key (CSRF tokens, download URLs, device cookies). `SIGNING_KEY` when
 * given, so that instances with different data directories accept each other's forms and links;
 * otherwise generated once into the data directory, so that restarts keep them valid.
 */
export function loadSigningKey(dataDir: string, configured?: Buffer): Buffer {
  if (configured) return configured;
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    const { signing_key } = JSON.parse(readFileSync(file, 'utf8')) as { signing_key: string };
    return Buffer.from(signing_key, 'base64url');
  }
  const key = randomBytes(32);
  writeFileSync(file, JSON.stringify({ signing_key: key.toString('base64url') }), {
    mode: 0o600,
    flag: 'wx',
  });
  return key;
}
