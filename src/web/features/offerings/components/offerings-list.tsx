import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorNotice, Loading } from '../../../components/ui/status';
import { messageOf, NotOffered } from '../../../lib/platform/errors';
import { useServices } from '../../../lib/services';
import { offeringsQuery } from '../api/offerings-queries';
import { OfferingLogo } from './offering-logo';

/**
 * The products the person may read, each with its logo, its name leading to the product's page, and
 * "Show more" for the next page. `productHref` is the address of a product's page; `notOffered` is
 * what to show on a platform that lists no offerings (the route's way in by number).
 */
export function OfferingsList({
  productHref,
  notOffered,
}: {
  productHref: (id: number) => string;
  notOffered: ReactNode;
}) {
  const { platform } = useServices();
  const list = useInfiniteQuery(offeringsQuery(platform));
  const items = useMemo(() => list.data?.pages.flatMap((page) => page.items) ?? [], [list.data]);
  const { linksRef, endRef, focusNewFrom } = useFocusOnMore(
    items,
    list.isFetchingNextPage,
    list.isFetchNextPageError,
  );

  if (list.isPending) return <Loading label="Loading offerings…" />;
  if (list.data === undefined) {
    if (list.error instanceof NotOffered) return notOffered;
    return <OfferingsError error={list.error} onRetry={() => void list.refetch()} />;
  }
  if (items.length === 0 && !list.hasNextPage) {
    return (
      <p className="empty">
        No offerings to show yet. When issuers put products on the platform, they appear here.
      </p>
    );
  }

  function showMore() {
    if (list.isFetchingNextPage) return;
    focusNewFrom(items.length);
    void list.fetchNextPage();
  }

  return (
    <>
      <ul className="offering-list" aria-label="Offerings">
        {items.map((offering) => (
          <li key={offering.id} className="offering">
            <Link
              to={productHref(offering.id)}
              className="offering-link"
              ref={(element) => {
                if (element) linksRef.current.set(offering.id, element);
                else linksRef.current.delete(offering.id);
              }}
            >
              <OfferingLogo offering={offering} />
              <span className="offering-name">{offering.name}</span>
            </Link>
          </li>
        ))}
      </ul>
      {list.isFetchNextPageError && (
        <p className="field-error" role="alert">
          More offerings could not be loaded. {messageOf(list.error)}
        </p>
      )}
      {list.hasNextPage ? (
        <button
          type="button"
          className="button"
          // Not `disabled`: a button that turns disabled loses focus, and the person their place.
          aria-disabled={list.isFetchingNextPage}
          onClick={showMore}
        >
          {list.isFetchingNextPage ? 'Loading…' : list.isFetchNextPageError ? 'Try again' : 'Show more'}
        </button>
      ) : (
        <p className="hint" ref={endRef} tabIndex={-1}>
          {items.length === 1 ? 'That is the only offering.' : `All ${items.length} offerings are shown.`}
        </p>
      )}
    </>
  );
}

/**
 * After "Show more" (`focusNewFrom` the position of the first new offering), focus goes to the first
 * new offering once it is shown, or to the end of the list when the last page was empty; a failed
 * page keeps it on its "Try again".
 */
function useFocusOnMore(items: { id: number }[], fetchingMore: boolean, moreFailed: boolean) {
  const links = useRef(new Map<number, HTMLAnchorElement>());
  const end = useRef<HTMLParagraphElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || fetchingMore) return;
    focusFrom.current = null;
    if (moreFailed) return;
    const first = items[from];
    (first ? links.current.get(first.id) : end.current)?.focus();
  }, [items, fetchingMore, moreFailed]);
  const focusNewFrom = (position: number) => {
    focusFrom.current = position;
  };
  return { linksRef: links, endRef: end, focusNewFrom };
}

function OfferingsError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <ErrorNotice title="The offerings could not be loaded">
      <p>{messageOf(error)}</p>
      <button type="button" className="button" onClick={onRetry}>
        Try again
      </button>
    </ErrorNotice>
  );
}
