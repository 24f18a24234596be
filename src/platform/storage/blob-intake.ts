import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type BlobRange, BlobTooLargeError } from './blob-store';

/** 32 random bytes in base64url: 256 bits, so a key can be neither guessed nor enumerated. */
export const blobKeyPattern = /^[A-Za-z0-9_-]{43}$/;

export const isBlobKey = (key: string) => blobKeyPattern.test(key);

export const newBlobKey = () => randomBytes(32).toString('base64url');

/** file-type reads at most this many bytes of a file to recognize it. */
export const minimumHeadBytes = 4100;

/**
 * More than file-type needs: the text sniffing judges the whole head (control characters, markup),
 * and Office files are recognized by walking zip entries that may lie past 4100 bytes.
 */
export const defaultHeadBytes = 64 * 1024;

export function checkHeadBytes(headBytes: number) {
  if (!Number.isSafeInteger(headBytes) || headBytes < minimumHeadBytes) {
    throw new RangeError(`headBytes must be an integer of at least ${minimumHeadBytes}`);
  }
}

/** multipart file streams end "normally" when cut at their size limit, and say so here. */
export const isTruncated = (source: Readable) =>
  (source as Readable & { truncated?: unknown }).truncated === true;

export function assertRange(range: BlobRange) {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}

/**
 * What every store counts on the way in, whatever it writes to: the size (refusing a byte past
 * `maxBytes`), the sha256 and the first bytes for content sniffing.
 */
export function createIntake(maxBytes: number, headBytes: number) {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError('invalid maxBytes');
  const hash = createHash('sha256');
  const head = Buffer.alloc(Math.min(headBytes, maxBytes));
  let headLength = 0;
  let size = 0;
  return {
    /** Counts a chunk and answers it as bytes; throws once past the limit, before hashing it. */
    take(chunk: unknown): Uint8Array {
      // A stream with an encoding set yields strings, whose bytes are not the file's any more.
      if (!(chunk instanceof Uint8Array)) throw new TypeError('stage() reads byte streams only');
      size += chunk.length;
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      hash.update(chunk);
      if (headLength < head.length) {
        const copied = Math.min(chunk.length, head.length - headLength);
        head.set(chunk.subarray(0, copied), headLength);
        headLength += copied;
      }
      return chunk;
    },
    result() {
      return { size, sha256: hash.digest('hex'), head: Buffer.from(head.subarray(0, headLength)) };
    },
  };
}
