import { useEffect, useRef, type RefObject } from 'react';

/** How far below the screen the button may still be when scrolling loads the next page already. */
const aheadOfScrolling = '0px 0px 600px 0px';

/**
 * "Show more" for a list that arrives a page at a time: a button anyone can reach and press, which
 * also presses itself each time scrolling brings it near (IntersectionObserver), so that scrolling
 * on loads the rest. Only coming near counts, not staying there: where a page's items go in above
 * the screen (the browser then keeps what is on screen in place), the button stays where it was, and
 * loading on by itself would go on to the end of a list of any length. It does not press itself
 * while a page is loading, nor after a failure (the person then chooses to try again).
 * `buttonRef` is the caller's, to tell whether the button has focus.
 */
export function ShowMore({
  label,
  loading,
  failed,
  onMore,
  buttonRef,
}: {
  label: string;
  loading: boolean;
  failed: boolean;
  onMore: () => void;
  buttonRef: RefObject<HTMLButtonElement | null>;
}) {
  const latest = useRef({ onMore, ready: !loading && !failed });
  useEffect(() => {
    latest.current = { onMore, ready: !loading && !failed };
  }, [onMore, loading, failed]);

  // Browsers without the observer (and jsdom) have the button.
  useEffect(() => {
    const target = buttonRef.current;
    if (!target || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const came = entries.some((entry) => entry.isIntersecting);
        if (came && latest.current.ready) latest.current.onMore();
      },
      { rootMargin: aheadOfScrolling },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [buttonRef]);

  return (
    <button
      ref={buttonRef}
      type="button"
      className="button"
      // Not `disabled`: a button that turns disabled loses focus, and the person their place.
      aria-disabled={loading}
      onClick={() => {
        if (!loading) onMore();
      }}
    >
      {loading ? 'Loading…' : failed ? 'Try again' : label}
    </button>
  );
}
