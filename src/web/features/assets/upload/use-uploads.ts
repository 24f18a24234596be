import pLimit from 'p-limit';
import { useCallback, useEffect, useRef, useState } from 'react';
import { describeAccepts, findFileType } from '../../../../shared/assets/file-types';
import { ApiError, messageOf, SessionEnded } from '../../../lib/platform/errors';
import type { EntityRef, StoredFile, Uploaded } from '../../../lib/platform/model';
import { keptForUser } from '../../../lib/browser-memory';
import { keptUploads } from '../../../lib/kept-uploads';
import { useServices } from '../../../lib/services';

export type UploadPhase = 'waiting' | 'sending' | 'processing' | 'done' | 'failed' | 'cancelled';

export interface UploadItem {
  id: string;
  file: File;
  private: boolean;
  meta: Record<string, unknown>;
  /** Kept across retries: the platform answers a retry with the first attempt's asset, never a second. */
  idempotencyKey: string;
  phase: UploadPhase;
  sent: number;
  total: number;
  /** Bytes per second lately, while sending; undefined until there is enough to tell. */
  speed?: number;
  error?: string;
  /** Whether trying again can succeed: not for a file the platform refused for what it is. */
  retryable?: boolean;
  /** In a slot that holds one file: the file this one replaces once it is stored. */
  replaces?: StoredFile[];
}

/**
 * At most three uploads at once across the page, the rest waiting in order: dropping twenty files does
 * not open twenty connections that starve each other of bandwidth.
 */
export const uploadLimit = pLimit(3);

/**
 * How long "3 files uploaded" stays after the last upload of a run finished (it fades meanwhile); a
 * finished upload's own row goes at once, its card taking its place.
 */
export const doneSummaryMs = 6_000;

/** Statuses after which the same upload can succeed later: busy, slow, or briefly unavailable. */
const retryableStatuses = new Set([408, 409, 425, 429, 502, 503, 504]);

/** Why an upload failed, in words about the file and the slot, never a MIME type or an internal name. */
function failureOf(error: unknown, file: File, fileType: string): { message: string; retryable: boolean } {
  if (error instanceof ApiError) {
    const slot = findFileType(fileType);
    const retryable = retryableStatuses.has(error.status) || error.status >= 500;
    if (error.status === 415)
      return {
        message: `${file.name} is not a kind of file this slot takes${slot ? `: upload ${describeAccepts(slot)}` : ''}.`,
        retryable,
      };
    if (error.status === 413) return { message: `${file.name} is too large for this slot.`, retryable };
    return { message: messageOf(error), retryable };
  }
  // Network trouble can pass; after an ended session, signing in again lets Retry send it (the
  // upload is kept through the sign-in: kept-uploads.ts).
  if (error instanceof SessionEnded)
    return {
      message: `${file.name} was not sent: your session ended. Sign in again, then Retry.`,
      retryable: true,
    };
  return { message: messageOf(error), retryable: true };
}

/** The uploads of one slot: start, follow, cancel, retry. */
export function useUploads(target: {
  entity: EntityRef;
  fileType: string;
  /** `item` says what the upload was for (the file it replaces, in a one-file slot). */
  onUploaded: (uploaded: Uploaded, item: UploadItem) => void;
  /** The platform refused the person the right to add files here (403). */
  onForbidden: () => void;
}) {
  const { platform } = useServices();
  const [items, setItems] = useState<UploadItem[]>([]);
  const controllers = useRef(new Map<string, AbortController>());
  // Screen readers hear phase changes, not every percent (web-app.md).
  const [announcement, setAnnouncement] = useState('');
  const targetRef = useRef(target);
  useEffect(() => {
    targetRef.current = target;
  });

  const update = useCallback((id: string, change: Partial<UploadItem>) => {
    setItems((all) => all.map((item) => (item.id === id ? { ...item, ...change } : item)));
  }, []);
  const dismiss = useCallback((id: string) => {
    setItems((all) => all.filter((i) => i.id !== id));
    void keptUploads.drop(id);
  }, []);

  // Uploads of this slot that failed before the page last ended (a sign-in, a reload): back with
  // their Retry, the file and its key kept.
  const { type: entityType, id: entityId } = target.entity;
  const slotFileType = target.fileType;
  useEffect(() => {
    let current = true;
    void keptUploads.of({ type: entityType, id: entityId }, slotFileType).then((kept) => {
      const owner = keptForUser();
      const mine = kept.filter((upload) => upload.owner === null || owner === null || upload.owner === owner);
      if (!current || mine.length === 0) return;
      setItems((all) => [
        ...mine
          .filter((upload) => !all.some((item) => item.id === upload.id))
          .map((upload) => ({
            id: upload.id,
            file: upload.file,
            private: upload.private,
            meta: upload.meta,
            idempotencyKey: upload.idempotencyKey,
            phase: 'failed' as const,
            sent: 0,
            total: upload.file.size,
            error: upload.error,
            retryable: true,
          })),
        ...all,
      ]);
    });
    return () => {
      current = false;
    };
  }, [entityType, entityId, slotFileType]);

  // Finished uploads of the current run, for the one summary line that replaces their rows.
  const [finished, setFinished] = useState(0);
  const summaryTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(summaryTimer.current), []);

  /**
   * A finished row goes at once, counted in the summary line, unless the person is on it (focus would
   * fall to the page's top): then it waits until they have moved on.
   */
  const clearDone = useCallback(
    (id: string) => {
      const clear = () => {
        if (document.getElementById(`upload-${id}`)?.contains(document.activeElement))
          setTimeout(clear, doneSummaryMs);
        else dismiss(id);
      };
      clear();
      setFinished((count) => count + 1);
      clearTimeout(summaryTimer.current);
      summaryTimer.current = setTimeout(() => setFinished(0), doneSummaryMs);
    },
    [dismiss],
  );

  const run = useCallback(
    async (item: UploadItem) => {
      const controller = new AbortController();
      controllers.current.set(item.id, controller);
      update(item.id, { phase: 'waiting', error: undefined, sent: 0, speed: undefined });
      const name = item.file.name;
      let processing = false;
      // The speed is a moving average over the progress events, so one burst does not swing it.
      let last: { at: number; sent: number } | undefined;
      let speed: number | undefined;
      try {
        const { entity, fileType } = targetRef.current;
        const uploaded = await uploadLimit(() => {
          if (controller.signal.aborted) throw new DOMException('cancelled', 'AbortError');
          update(item.id, { phase: 'sending' });
          setAnnouncement(`${name}: sending`);
          return platform.upload(
            { fileType, entity, private: item.private, meta: item.meta, file: item.file },
            {
              idempotencyKey: item.idempotencyKey,
              signal: controller.signal,
              onProgress: (sent, total) => {
                const now = performance.now();
                if (last && now - last.at >= 250) {
                  const instant = ((sent - last.sent) * 1000) / (now - last.at);
                  speed = speed === undefined ? instant : speed * 0.7 + instant * 0.3;
                  last = { at: now, sent };
                } else if (!last) last = { at: now, sent };
                const done = sent >= total;
                update(item.id, { sent, total, speed, phase: done ? 'processing' : 'sending' });
                if (done && !processing) setAnnouncement(`${name}: sent, processing`);
                processing ||= done;
              },
            },
          );
        });
        update(item.id, { phase: 'done', sent: item.file.size, total: item.file.size });
        void keptUploads.drop(item.id);
        setAnnouncement(`${name}: uploaded`);
        targetRef.current.onUploaded(uploaded, item);
        clearDone(item.id);
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) targetRef.current.onForbidden();
        if (error instanceof DOMException && error.name === 'AbortError') {
          update(item.id, { phase: 'cancelled', retryable: true });
          setAnnouncement(`${name}: upload cancelled`);
        } else {
          const { entity, fileType } = targetRef.current;
          const { message, retryable } = failureOf(error, item.file, fileType);
          update(item.id, { phase: 'failed', error: message, retryable });
          setAnnouncement(`${name} failed: ${message}`);
          if (retryable) {
            const { id, file, idempotencyKey } = item;
            void keptUploads.keep({
              id,
              entity,
              fileType,
              private: item.private,
              meta: item.meta,
              idempotencyKey,
              file,
              error: message,
              owner: keptForUser(),
            });
          }
        }
      } finally {
        controllers.current.delete(item.id);
      }
    },
    [platform, update, clearDone],
  );

  const start = useCallback(
    (file: File, options: Pick<UploadItem, 'private' | 'meta' | 'replaces'>) => {
      const item: UploadItem = {
        id: crypto.randomUUID(),
        file,
        ...options,
        idempotencyKey: crypto.randomUUID(),
        phase: 'waiting',
        sent: 0,
        total: file.size,
      };
      setItems((all) => [...all, item]);
      void run(item);
      return item.id;
    },
    [run],
  );

  const retry = useCallback(
    (id: string) => {
      const item = items.find((i) => i.id === id);
      if (item) void run(item);
    },
    [items, run],
  );

  const cancel = useCallback((id: string) => controllers.current.get(id)?.abort(), []);

  return { items, finished, announcement, start, retry, cancel, dismiss };
}
