import type { Readable } from 'node:stream';

/**
 * Where asset bytes live. The filesystem store is the embedded default; an S3 store can implement
 * the same interface. Keys are opaque and generated here, never derived from user input.
 */
export interface BlobStore {
  /**
   * Streams a file into a staging area, hashing and counting on the way, and stops reading as soon
   * as it exceeds `maxBytes` (BlobTooLargeError). Nothing is visible under the key until commit.
   */
  stage(source: Readable, options: { maxBytes: number }): Promise<StagedBlob>;
  /** The bytes under a key, optionally an inclusive byte range; undefined when absent. */
  open(key: string, range?: { start: number; end: number }): Promise<Readable | undefined>;
  /** Deletes the bytes under a key; deleting an absent key is fine. */
  delete(key: string): Promise<void>;
  /** Removes staging leftovers of a crashed process; call at start, when nothing is in flight. */
  removeTemporaryLeftovers(): Promise<number>;
  /** Every committed key, for the start-up sweep of files that no row names. */
  keys(): AsyncIterable<string>;
}

export interface StagedBlob {
  key: string;
  size: number;
  /** Hex sha256 of the bytes. */
  sha256: string;
  /** The first bytes, for content sniffing. */
  head: Buffer;
  /** Makes the bytes durable under `key`. */
  commit(): Promise<void>;
  /** Throws the staged bytes away. */
  discard(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
  }
}
