import pLimit from 'p-limit';
import {
  type Dispatch,
  type MutableRefObject,
  type SetStateAction,
  useCallback,
  useEffect,
  useRef,
  useState,
} from 'react';
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

/** Where an upload goes, and what its slot wants to hear of it. */
export interface UploadTarget {
  entity: EntityRef;
  fileType: string;
  /** `item` says what the upload was for (the file it replaces, in a one-file slot). */
  onUploaded: (uploaded: Uploaded, item: UploadItem) => void;
  /** The platform refused the person the right to add files here (403). */
  onForbidden: () => void;
}

type SetItems = Dispatch<SetStateAction<UploadItem[]>>;
type UpdateItem = (id: string, change: Partial<UploadItem>) => void;

/**
 * The uploads of one slot: start, follow, pause and resume (resumable ones), cancel, retry; and the
 * slot's unfinished resumable uploads from before a reload, which the same file chosen again continues.
 */
export function useUploads(target: UploadTarget) {
  const { platform } = useServices();
  const [items, setItems] = useState<UploadItem[]>([]);
  // Screen readers hear phase changes, not every percent (web-app.md).
  const [announcement, setAnnouncement] = useState('');

  const update = useCallback<UpdateItem>((id, change) => {
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

  useKeptUploads(target.entity, target.fileType, setItems);
  const { unfinished, setUnfinished, discardUnfinished } = useUnfinishedUploads(
    target.entity,
    target.fileType,
  );
  const { finished, clearDone } = useDoneSummary(removeRow);
  const { run, stop } = useUploadRun(target, { update, announce: setAnnouncement, clearDone });
  useResumeWhenOnline(latestItems, run, setAnnouncement);

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
    [run, platform, setUnfinished],
  );
  const controls = useRowControls({ items, run, stop, update, announce: setAnnouncement });

  // Those that a row of this page continues are not listed again.
  const notContinued = unfinished.filter((u) => !items.some((item) => continues(u, item)));

  return {
    items,
    finished,
    announcement,
    start,
    ...controls,
    dismiss,
    unfinished: notContinued,
    discardUnfinished,
  };
}

/**
 * Uploads of this slot that failed before the page last ended (a sign-in, a reload): back with
 * their Retry, the file and its key kept.
 */
function useKeptUploads(entity: EntityRef, slotFileType: string, setItems: SetItems) {
  const { platform } = useServices();
  const { type: entityType, id: entityId } = entity;
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
  }, [entityType, entityId, slotFileType, platform, setItems]);
}

/**
 * Resumable uploads of this slot left unfinished when the page last ended: listed until the same
 * file is chosen again (its row then takes over) or they are discarded.
 */
function useUnfinishedUploads(entity: EntityRef, slotFileType: string) {
  const { platform } = useServices();
  const { type: entityType, id: entityId } = entity;
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
  return { unfinished, setUnfinished, discardUnfinished };
}

/** Finished uploads of the current run, for the one summary line that replaces their rows. */
function useDoneSummary(removeRow: (id: string) => void) {
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
  return { finished, clearDone };
}

/** The speed of an upload: a moving average over its progress events, so one burst does not swing it. */
function speedMeter() {
  let last: { at: number; sent: number } | undefined;
  let speed: number | undefined;
  return {
    sample(sent: number) {
      const now = performance.now();
      if (last && now - last.at >= 250) {
        const instant = ((sent - last.sent) * 1000) / (now - last.at);
        speed = speed === undefined ? instant : speed * 0.7 + instant * 0.3;
        last = { at: now, sent };
      } else if (!last) last = { at: now, sent };
      return speed;
    },
    /** The speed so far says nothing about the connection that comes back. */
    reset() {
      last = undefined;
      speed = undefined;
    },
  };
}

/** A row's bar, speed and announcements as its bytes go, and when its connection is lost. */
function progressOf(item: UploadItem, { update, announce }: Pick<RunDeps, 'update' | 'announce'>) {
  const name = item.file.name;
  let processing = false;
  const meter = speedMeter();
  return {
    onProgress: (sent: number, total: number) => {
      const speed = meter.sample(sent);
      const done = sent >= total;
      update(item.id, {
        sent,
        total,
        speed,
        reconnecting: false,
        phase: done ? 'processing' : 'sending',
      });
      if (done && !processing) announce(`${name}: sent, processing`);
      processing ||= done;
    },
    onReconnecting: () => {
      meter.reset();
      update(item.id, { reconnecting: true, speed: undefined });
      announce(`${name}: connection lost, trying again`);
    },
  };
}

interface RunDeps {
  update: UpdateItem;
  announce: (words: string) => void;
  clearDone: (id: string) => void;
}

/**
 * `run` sends one row's file (a first time, again, or on from a pause) and follows it to its end;
 * `stop` aborts a row's upload in flight (with `pauseReason`: a pause), answering whether there was one.
 */
function useUploadRun(target: UploadTarget, { update, announce, clearDone }: RunDeps) {
  const { platform } = useServices();
  const controllers = useRef(new Map<string, AbortController>());
  const targetRef = useRef(target);
  useEffect(() => {
    targetRef.current = target;
  });
  const stop = useCallback((id: string, reason?: unknown) => {
    const controller = controllers.current.get(id);
    controller?.abort(reason);
    return controller !== undefined;
  }, []);
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
      let resumeId = item.resumeId;
      try {
        const { entity, fileType } = targetRef.current;
        const uploaded = await untilAborted(controller.signal, () => {
          if (controller.signal.aborted) throw new DOMException('cancelled', 'AbortError');
          update(item.id, { phase: 'sending' });
          announce(`${name}: sending`);
          return platform.upload(
            { fileType, entity, private: item.private, meta: item.meta, file: item.file },
            {
              idempotencyKey: item.idempotencyKey,
              signal: controller.signal,
              ...progressOf(item, { update, announce }),
              onResumable: (id) => {
                resumeId = id;
                update(item.id, { resumeId });
              },
            },
          );
        });
        update(item.id, { phase: 'done', sent: item.file.size, total: item.file.size });
        void keptUploads.drop(item.id);
        announce(`${name}: uploaded`);
        targetRef.current.onUploaded(uploaded, item);
        clearDone(item.id);
      } catch (error) {
        stopped(error, { item, controller, resumeId, target: targetRef.current, update, announce });
      } finally {
        controllers.current.delete(item.id);
      }
    },
    [platform, update, announce, clearDone],
  );
  return { run, stop };
}

/** An upload that did not end stored: paused, cancelled, or failed (and then kept for Retry when it can succeed). */
function stopped(
  error: unknown,
  {
    item,
    controller,
    resumeId,
    target,
    update,
    announce,
  }: {
    item: UploadItem;
    controller: AbortController;
    resumeId: string | undefined;
    target: UploadTarget;
    update: UpdateItem;
    announce: (words: string) => void;
  },
) {
  const name = item.file.name;
  if (error instanceof ApiError && error.status === 403) target.onForbidden();
  if (controller.signal.reason === pauseReason) {
    update(item.id, { phase: 'paused', speed: undefined, reconnecting: false });
    announce(`${name}: paused`);
    return;
  }
  if (error instanceof DOMException && error.name === 'AbortError') {
    // A resumable upload is given up at the platform as it is cancelled: nothing is left to discard.
    update(item.id, { phase: 'cancelled', retryable: true, reconnecting: false, resumeId: undefined });
    announce(`${name}: upload cancelled`);
    return;
  }
  const { entity, fileType } = target;
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
  announce(`${name} failed: ${message}`);
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

/** Back online: what stopped for want of a connection continues from the last byte the platform holds. */
function useResumeWhenOnline(
  latestItems: MutableRefObject<UploadItem[]>,
  run: (item: UploadItem) => Promise<void>,
  announce: (words: string) => void,
) {
  useEffect(() => {
    const back = () =>
      latestItems.current
        .filter((item) => item.phase === 'failed' && item.waitsForConnection)
        .forEach((item) => {
          announce(`${item.file.name}: back online, resuming`);
          void run(item);
        });
    window.addEventListener('online', back);
    return () => window.removeEventListener('online', back);
  }, [latestItems, run, announce]);
}

/** A row's buttons: Retry, Cancel, Pause and Resume. */
function useRowControls({
  items,
  run,
  stop,
  update,
  announce,
}: {
  items: UploadItem[];
  run: (item: UploadItem) => Promise<void>;
  stop: (id: string, reason?: unknown) => boolean;
  update: UpdateItem;
  announce: (words: string) => void;
}) {
  const { platform } = useServices();
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
      if (stop(id)) return;
      const item = items.find((i) => i.id === id);
      if (item?.phase !== 'paused') return;
      if (item.resumeId) void platform.discardUpload(item.resumeId);
      update(id, { phase: 'cancelled', retryable: true, resumeId: undefined });
      announce(`${item.file.name}: upload cancelled`);
    },
    [items, stop, platform, update, announce],
  );

  /** Stops a resumable upload where it is; what arrived stays at the platform for `resume`. */
  const pause = useCallback((id: string) => void stop(id, pauseReason), [stop]);

  /** Continues a paused upload from the last byte the platform holds (it waits its turn like any upload). */
  const resume = useCallback(
    (id: string) => {
      const item = items.find((i) => i.id === id);
      if (item?.phase !== 'paused') return;
      announce(`${item.file.name}: resuming`);
      void run(item);
    },
    [items, run, announce],
  );
  return { retry, cancel, pause, resume };
}
