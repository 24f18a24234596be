import pLimit from 'p-limit';
import { useCallback, useEffect, useRef, useState } from 'react';
import { describeAccepts, findFileType } from '../../../../shared/assets/file-types';
import { ApiError, messageOf, SessionEnded } from '../../../lib/platform/errors';
import {
  pauseReason,
  type EntityRef,
  type StoredFile,
  type UnfinishedUpload,
  type Uploaded,
} from '../../../lib/platform/model';
import { keptForUser } from '../../../lib/browser-memory';
import { keptUploads } from '../../../lib/kept-uploads';
import { useServices } from '../../../lib/services';

export type UploadPhase = 'waiting' | 'sending' | 'paused' | 'processing' | 'done' | 'failed' | 'cancelled';

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
  /** Sent resumably (a large file, where the platform offers it): it can be paused and continued. */
  resumable: boolean;
  /** A resumable upload's id at the platform, once it has one: what Cancel and Dismiss give up. */
  resumeId?: string;
  /** The connection was lost and the upload will try again by itself. */
  reconnecting?: boolean;
  /** A resumable upload that failed while the browser was offline: it continues once it is back online. */
  waitsForConnection?: boolean;
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

/**
 * Takes its turn among the uploads in flight (`uploadLimit`), but stops at once when its signal aborts:
 * a waiting upload paused or cancelled says so now, not when its turn would have come.
 */
function untilAborted<T>(signal: AbortSignal, send: () => Promise<T>): Promise<T> {
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([uploadLimit(send), stopped]);
}

/** An unfinished upload (after a reload) that this row's file continues: the same name and size. */
const continues = (unfinished: UnfinishedUpload, item: Pick<UploadItem, 'file' | 'resumeId'>) =>
  item.resumeId === unfinished.id ||
  (unfinished.name === item.file.name && unfinished.size === item.file.size);

/**
 * The uploads of one slot: start, follow, pause and resume (resumable ones), cancel, retry; and the
 * slot's unfinished resumable uploads from before a reload, which the same file chosen again continues.
 */
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
  // The rows as last drawn, for callbacks that outlive a drawing (a finished row cleared later).
  const latestItems = useRef(items);
  useEffect(() => {
    latestItems.current = items;
  });
  const removeRow = useCallback((id: string) => {
    setItems((all) => all.filter((i) => i.id !== id));
    void keptUploads.drop(id);
  }, []);
  /** The person's Dismiss: what an unfinished resumable upload left at the platform is given up with it. */
  const dismiss = useCallback(
    (id: string) => {
      const gone = latestItems.current.find((i) => i.id === id);
      if (gone?.resumeId && gone.phase !== 'done') void platform.discardUpload(gone.resumeId);
      removeRow(id);
    },
    [platform, removeRow],
  );

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
            resumable: platform.resumes(upload.file),
            ...(upload.resumeId ? { resumeId: upload.resumeId } : {}),
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
  }, [entityType, entityId, slotFileType, platform]);

  // Resumable uploads of this slot left unfinished when the page last ended: listed until the same
  // file is chosen again (its row then takes over) or they are discarded.
  const [unfinished, setUnfinished] = useState<UnfinishedUpload[]>([]);
  useEffect(() => {
    let current = true;
    void platform
      .unfinishedUploads({ type: entityType, id: entityId }, slotFileType)
      .catch(() => [])
      .then((found) => {
        if (current) setUnfinished(found);
      });
    return () => {
      current = false;
    };
  }, [entityType, entityId, slotFileType, platform]);
  const discardUnfinished = useCallback(
    (id: string) => {
      setUnfinished((all) => all.filter((u) => u.id !== id));
      void platform.discardUpload(id);
    },
    [platform],
  );

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
        else removeRow(id);
      };
      clear();
      setFinished((count) => count + 1);
      clearTimeout(summaryTimer.current);
      summaryTimer.current = setTimeout(() => setFinished(0), doneSummaryMs);
    },
    [removeRow],
  );

  const run = useCallback(
    async (item: UploadItem) => {
      const controller = new AbortController();
      controllers.current.set(item.id, controller);
      // A resumable upload continues from what the platform holds: the bar stays where it was until
      // the platform says.
      update(item.id, {
        phase: 'waiting',
        error: undefined,
        speed: undefined,
        reconnecting: false,
        waitsForConnection: false,
        ...(item.resumable && item.phase !== 'cancelled' ? {} : { sent: 0 }),
      });
      const name = item.file.name;
      let processing = false;
      // The speed is a moving average over the progress events, so one burst does not swing it.
      let last: { at: number; sent: number } | undefined;
      let speed: number | undefined;
      let resumeId = item.resumeId;
      try {
        const { entity, fileType } = targetRef.current;
        const uploaded = await untilAborted(controller.signal, () => {
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
                update(item.id, {
                  sent,
                  total,
                  speed,
                  reconnecting: false,
                  phase: done ? 'processing' : 'sending',
                });
                if (done && !processing) setAnnouncement(`${name}: sent, processing`);
                processing ||= done;
              },
              onReconnecting: () => {
                // The speed so far says nothing about the connection that comes back.
                last = undefined;
                speed = undefined;
                update(item.id, { reconnecting: true, speed: undefined });
                setAnnouncement(`${name}: connection lost, trying again`);
              },
              onResumable: (id) => {
                resumeId = id;
                update(item.id, { resumeId });
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
        if (controller.signal.reason === pauseReason) {
          update(item.id, { phase: 'paused', speed: undefined, reconnecting: false });
          setAnnouncement(`${name}: paused`);
        } else if (error instanceof DOMException && error.name === 'AbortError') {
          // A resumable upload is given up at the platform as it is cancelled: nothing is left to discard.
          update(item.id, { phase: 'cancelled', retryable: true, reconnecting: false, resumeId: undefined });
          setAnnouncement(`${name}: upload cancelled`);
        } else {
          const { entity, fileType } = targetRef.current;
          const failure = failureOf(error, item.file, fileType);
          const { retryable } = failure;
          const waitsForConnection = item.resumable && error instanceof TypeError && !navigator.onLine;
          const message = waitsForConnection
            ? 'You are offline. The upload continues by itself when you are back online.'
            : failure.message;
          update(item.id, {
            phase: 'failed',
            error: message,
            retryable,
            reconnecting: false,
            waitsForConnection,
          });
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
              ...(resumeId ? { resumeId } : {}),
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

  // Back online: what stopped for want of a connection continues from the last byte the platform holds.
  useEffect(() => {
    const back = () =>
      latestItems.current
        .filter((item) => item.phase === 'failed' && item.waitsForConnection)
        .forEach((item) => {
          setAnnouncement(`${item.file.name}: back online, resuming`);
          void run(item);
        });
    window.addEventListener('online', back);
    return () => window.removeEventListener('online', back);
  }, [run]);

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
        resumable: platform.resumes(file),
      };
      setItems((all) => [...all, item]);
      // Its row takes over from the unfinished upload it continues.
      setUnfinished((all) => all.filter((u) => !continues(u, item)));
      void run(item);
      return item.id;
    },
    [run, platform],
  );

  const retry = useCallback(
    (id: string) => {
      const item = items.find((i) => i.id === id);
      if (item) void run(item);
    },
    [items, run],
  );

  /** A paused upload has no request to stop: cancelling it gives up what the platform holds. */
  const cancel = useCallback(
    (id: string) => {
      const controller = controllers.current.get(id);
      if (controller) return controller.abort();
      const item = items.find((i) => i.id === id);
      if (item?.phase !== 'paused') return;
      if (item.resumeId) void platform.discardUpload(item.resumeId);
      update(id, { phase: 'cancelled', retryable: true, resumeId: undefined });
      setAnnouncement(`${item.file.name}: upload cancelled`);
    },
    [items, platform, update],
  );

  /** Stops a resumable upload where it is; what arrived stays at the platform for `resume`. */
  const pause = useCallback((id: string) => controllers.current.get(id)?.abort(pauseReason), []);

  /** Continues a paused upload from the last byte the platform holds (it waits its turn like any upload). */
  const resume = useCallback(
    (id: string) => {
      const item = items.find((i) => i.id === id);
      if (item?.phase !== 'paused') return;
      setAnnouncement(`${item.file.name}: resuming`);
      void run(item);
    },
    [items, run],
  );

  // Those that a row of this page continues are not listed again.
  const notContinued = unfinished.filter((u) => !items.some((item) => continues(u, item)));

  return {
    items,
    finished,
    announcement,
    start,
    retry,
    cancel,
    dismiss,
    pause,
    resume,
    unfinished: notContinued,
    discardUnfinished,
  };
}
