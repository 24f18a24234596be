import { useEffect, useRef, useState } from 'react';
import type { Crop } from '../../../../shared/assets/crop';
import type { PendingImage } from './chosen-files';

/** Problems the check found that the person has not yet answered; empty when there is nothing to say. */
export const unansweredIssues = (pending: PendingImage) =>
  pending.verdict?.kind === 'checked' && !pending.usedAnyway ? pending.verdict.quality.issues : [];

/**
 * A slot's images waiting for the crop dialog (and, before it, the photo warning), one at a time,
 * with how far through the batch it is ("Image 2 of 3"). `upload` sends an image on: `{ crop }`
 * when cropped, `{}` for the whole image. Every object URL is released: when its image leaves the
 * queue, or when the page goes away with images still waiting.
 */
export function useCropQueue(upload: (file: File, meta: Record<string, unknown>) => void) {
  const [queue, setQueue] = useState<PendingImage[]>([]);
  const [batch, setBatch] = useState({ done: 0, total: 0 });
  const waiting = useRef<PendingImage[]>([]);
  useEffect(() => {
    waiting.current = queue;
  }, [queue]);
  useEffect(() => () => waiting.current.forEach((p) => URL.revokeObjectURL(p.url)), []);
  const current = queue[0];

  return {
    /** The image the dialogs are about, if any. */
    current,
    /** Images in the queue, the current one included. */
    length: queue.length,
    /** "Image 2 of 3" while a batch of more than one goes through the dialog. */
    position: batch.total > 1 ? { position: batch.done + 1, total: batch.total } : undefined,

    /** Images join the queue; a batch that is under way grows by them. */
    add(images: PendingImage[]) {
      if (images.length === 0) return;
      setBatch((b) =>
        queue.length === 0 ? { done: 0, total: images.length } : { ...b, total: b.total + images.length },
      );
      setQueue((q) => [...q, ...images]);
    },

    /** `undefined`: not uploaded (cancelled); `null`: the whole image. */
    finish(crop: Crop | null | undefined) {
      if (!current) return;
      URL.revokeObjectURL(current.url);
      if (crop !== undefined) upload(current.file, crop ? { crop } : {});
      setBatch((b) => ({ ...b, done: b.done + 1 }));
      setQueue((q) => q.slice(1));
    },

    /** "Use anyway": on to the crop dialog, as for a photo with nothing to say. */
    goOnAnyway() {
      setQueue((q) => (q[0] ? [{ ...q[0], usedAnyway: true }, ...q.slice(1)] : q));
    },

    /** "Skip crop for the rest": this image and every one still waiting go up whole. */
    skipRest() {
      for (const pending of queue) {
        URL.revokeObjectURL(pending.url);
        upload(pending.file, {});
      }
      setBatch({ done: 0, total: 0 });
      setQueue([]);
    },
  };
}
