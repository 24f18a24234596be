import { useCallback, useEffect, useRef, useState } from 'react';
import type { AssetableType } from '../../../../shared/api/me';
import type { Asset } from '../../../../shared/assets/asset';
import { messageOf } from '../../../lib/api-error';
import { uploadAsset } from '../../../lib/platform-api';
import { useServices } from '../../../lib/services';
import { createLimiter } from './limiter';

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
  error?: string;
}

const uploads = createLimiter(3);

/** The uploads of one slot: start, follow, cancel, retry. */
export function useUploads(target: {
  assetableType: AssetableType;
  assetableId: number;
  fileType: string;
  onUploaded: (asset: Asset) => void;
}) {
  const { api } = useServices();
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

  const run = useCallback(
    async (item: UploadItem) => {
      const controller = new AbortController();
      controllers.current.set(item.id, controller);
      update(item.id, { phase: 'waiting', error: undefined, sent: 0 });
      const name = item.file.name;
      let processing = false;
      try {
        const { assetableType, assetableId, fileType } = targetRef.current;
        const asset = await uploads(() => {
          if (controller.signal.aborted) throw new DOMException('cancelled', 'AbortError');
          update(item.id, { phase: 'sending' });
          setAnnouncement(`${name}: sending`);
          return uploadAsset(
            api,
            { fileType, assetableType, assetableId, private: item.private, meta: item.meta, file: item.file },
            {
              idempotencyKey: item.idempotencyKey,
              signal: controller.signal,
              onProgress: (sent, total) => {
                const done = sent >= total;
                update(item.id, { sent, total, phase: done ? 'processing' : 'sending' });
                if (done && !processing) setAnnouncement(`${name}: sent, processing`);
                processing ||= done;
              },
            },
          );
        });
        update(item.id, { phase: 'done', sent: item.file.size, total: item.file.size });
        setAnnouncement(`${name}: uploaded`);
        targetRef.current.onUploaded(asset);
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') {
          update(item.id, { phase: 'cancelled' });
          setAnnouncement(`${name}: upload cancelled`);
        } else {
          const message = messageOf(error);
          update(item.id, { phase: 'failed', error: message });
          setAnnouncement(`${name} failed: ${message}`);
        }
      } finally {
        controllers.current.delete(item.id);
      }
    },
    [api, update],
  );

  const start = useCallback(
    (file: File, options: { private: boolean; meta: Record<string, unknown> }) => {
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
  const dismiss = useCallback((id: string) => setItems((all) => all.filter((i) => i.id !== id)), []);

  return { items, announcement, start, retry, cancel, dismiss };
}
