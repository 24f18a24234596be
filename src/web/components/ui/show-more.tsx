import { useEffect, useRef, type RefObject } from 'react';

/** How far below the screen the button may still be when scrolling loads the next page already. */
const aheadOfScrolling = '0px 0px 600px 0px';

/**
 * "Show more" for a list that arrives a page at a time: a button anyone can reach and press, which
 * also presses itself when scrolling brings it near (IntersectionObserver), so that scrolling on
 * loads the rest. It does not press itself while a page is loading, nor after a failure: then the
 * person chooses to try again. `buttonRef` is the caller's, to tell whether the button has focus.
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
  const more = useRef(onMore);
  useEffect(() => {
    more.current = onMore;
  }, [onMore]);

  // Observed anew after each page: a button still in view once the new items are in (they went in
  // above it) is reported at once, and the next page comes. Browsers without the observer (and
  // jsdom) have the button.
  useEffect(() => {
    const target = buttonRef.current;
    if (!target || loading || failed || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) more.current();
      },
      { rootMargin: aheadOfScrolling },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [buttonRef, loading, failed]);

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
