import { useEffect, useState, type RefObject } from 'react';

export interface Size {
  width: number;
  height: number;
}

/**
 * The element's inner size in CSS pixels, kept up to date as the window changes (the viewer fits to
 * it); null until measured, and where the browser measures nothing (a size of 0, as in tests).
 */
export function useStageSize(ref: RefObject<HTMLElement | null>): Size | null {
  const [size, setSize] = useState<Size | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const { clientWidth: width, clientHeight: height } = element;
      setSize((old) =>
        width > 0 && height > 0
          ? old?.width === width && old.height === height
            ? old
            : { width, height }
          : null,
      );
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}

/**
 * Gives the element keyboard focus when it arrives in an open viewer whose focus has nowhere better
 * to be (the page behind, or a view that went, as after "Next" by key), so that its keys work without
 * a Tab. A control the person is using keeps focus. On the viewer's first drawing the dialog is not
 * open yet: the dialog focuses the element marked `data-autofocus` itself once it opens.
 */
export function useFocusOnArrival(ref: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const element = ref.current;
    const dialog = element?.closest('dialog');
    if (!element || !dialog?.open) return;
    const active = document.activeElement;
    const adrift = !active || active === document.body || active === dialog || !active.isConnected;
    if (adrift) element.focus();
  }, [ref]);
}

/** A key pressed while typing (the page number) is the field's, not a viewer shortcut. */
export const typing = (target: EventTarget) =>
  target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]') !== null;
