import { resumableFromBytes } from '../../../shared/api/resumable-uploads';
import { failure } from './answers';
import { updateFile } from './file-changes';
import type { EntityRef, NewFile, StoredFile, UnfinishedUpload, Uploaded, UploadOptions } from './model';
import { can, type PlatformContext } from './platform-context';
import { readFileAnswer } from './read-shapes';
import { sendUpload, uploadForm, type UploadAnswer } from './upload';

/**
 * Sending a new file: resumable (tus, resumable-upload.ts) where the platform offers it and the file is
 * large enough to be worth it, the spec's multipart `POST` (upload.ts) otherwise; then, where the
 * platform ignored `private`, the spec's own update.
 */

/**
 * Whether this file would be sent resumably. Only where the proxy found the tus endpoint: a platform
 * without it (the spec's) never sees a tus request.
 */
export function sendsResumably(context: PlatformContext, file: File): boolean {
  return can(context).resumableUploads === true && file.size >= resumableFromBytes;
}

// Loaded with tus-js-client only where it is used: the first page stays small (e2e/bundle-size.spec.ts).
const resumable = () => import('./resumable-upload');

export async function uploadFile(
  context: PlatformContext,
  newFile: NewFile,
  options: UploadOptions,
): Promise<Uploaded> {
  const { http, unfinished } = context;
  const answer = sendsResumably(context, newFile.file)
    ? await (await resumable()).sendResumable(http, newFile, options, unfinished)
    : await sendUpload(http, uploadForm(newFile), {
        ...options,
        sendIdempotencyKey: can(context).idempotencyKey === true,
      });
  const stored = await storedFileOf(answer);
  if (!newFile.private || stored.private) return { file: stored, privacyNotApplied: false };
  // The spec's create has no `private`: a platform that ignored it gets the spec's own update at once (C3).
  try {
    const made = await updateFile(context, stored, { private: true });
    return { file: made ?? { ...stored, private: true }, privacyNotApplied: false };
  } catch {
    return { file: stored, privacyNotApplied: true };
  }
}

/**
 * The file a create made, from the platform's answer: a refusal rejects with its ApiError; a success
 * whose body is not an asset rejects with words that say the file did arrive.
 */
export async function storedFileOf(answer: UploadAnswer): Promise<StoredFile> {
  if (answer.status < 200 || answer.status >= 300)
    return failure(new Response(answer.body, { status: answer.status }));
  let stored: StoredFile | undefined;
  try {
    stored = readFileAnswer(JSON.parse(answer.body) as unknown, answer.etag);
  } catch {
    stored = undefined;
  }
  if (!stored)
    throw new Error(
      'The file was sent, but the platform’s answer could not be read. Reload the page to see it.',
    );
  return stored;
}

/** This browser's unfinished resumable uploads of one slot; none asked for where none is remembered. */
export async function unfinishedUploadsOf(
  context: PlatformContext,
  entity: EntityRef,
  fileType: string,
): Promise<UnfinishedUpload[]> {
  const { http, unfinished } = context;
  return can(context).resumableUploads === true && (await unfinished.findAllUploads()).length > 0
    ? (await resumable()).unfinishedUploads(http, unfinished, entity, fileType)
    : [];
}

/** Gives an unfinished resumable upload up, here and at the platform. */
export async function discardUpload(context: PlatformContext, id: string): Promise<void> {
  return (await resumable()).discard(context.http, context.unfinished, id);
}
