import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal dialog on the native <dialog>: showModal() makes the rest of the page inert (focus stays
 * inside) and Escape closes it. Mount it to open it; `onClose` unmounts it. Focus starts on the
 * element marked `data-autofocus`, where there is one.
 *
 * When it goes, focus goes back to what opened it (a browser does this only for a dialog it closes
 * itself, not for one removed from the page), or, when that is gone too, to `returnFocus()`: the
 * caller's next sensible place. Focus never falls to the top of the page.
 */
export function Dialog({
  title,
  onClose,
  children,
  wide = false,
  returnFocus,
  className,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
  returnFocus?: () => HTMLElement | null | undefined;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const fallback = useRef(returnFocus);
  useEffect(() => {
    fallback.current = returnFocus;
  });
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) {
      dialog.showModal();
      // The part the dialog is for, when it marks one (a viewer's picture, so its keys work at once);
      // otherwise the browser's choice, the first control.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    return () => {
      dialog?.close();
      const target = opener?.isConnected && opener !== document.body ? opener : fallback.current?.();
      target?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={['dialog', wide ? 'dialog-wide' : '', className ?? ''].filter(Boolean).join(' ')}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
