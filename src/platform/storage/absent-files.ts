import { type FileHandle, open } from 'node:fs/promises';

/** The `code` of a node:fs error (ENOENT, EACCES, …), if it has one. */
export const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code;

/**
 * Whether a node:fs error says nothing is at the path. ENOTDIR too: a file where a folder of the path
 * should be means nothing below it either.
 */
export const isAbsent = (error: unknown) => errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR';

/** `pending`'s answer, or `absent` when what it reads is not there; other failures stay failures. */
export async function orIfAbsent<T, A>(pending: Promise<T>, absent: A): Promise<T | A> {
  try {
    return await pending;
  } catch (error) {
    if (isAbsent(error)) return absent;
    throw error;
  }
}

/**
 * The file at `path` opened for reading, or undefined when there is none. Opening (not stat, then
 * open) so that a removal in between cannot turn into a stream error: an open file stays readable.
 */
export function openIfPresent(path: string): Promise<FileHandle | undefined> {
  return orIfAbsent(open(path, 'r'), undefined);
}
