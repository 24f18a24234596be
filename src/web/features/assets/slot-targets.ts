import { createContext, useContext, useEffect } from 'react';
import type { FileTypeInfo } from '../../../shared/assets/file-types';

/**
 * The slots of one page that take files, so that a file dropped anywhere on the page can be handed
 * to the slot it belongs in (page-drop.tsx). Each slot registers while it may be uploaded to.
 */
export interface SlotTarget {
  fileType: FileTypeInfo;
  /** The slot's own way in: checked, cropped and uploaded as if chosen there. */
  accept: (files: File[]) => void;
}

export type SlotTargets = Map<string, SlotTarget>;

export const SlotTargetsContext = createContext<SlotTargets | null>(null);

/** Offers this slot to the page's drop target while `enabled`. */
export function useSlotTarget(target: SlotTarget, enabled: boolean): void {
  const targets = useContext(SlotTargetsContext);
  const name = target.fileType.fileType;
  useEffect(() => {
    if (!targets || !enabled) return;
    targets.set(name, target);
    return () => {
      if (targets.get(name) === target) targets.delete(name);
    };
  });
}
