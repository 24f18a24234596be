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
  const links = useRef(new Map<number, HTMLAnchorElement>());
  const end = useRef<HTMLParagraphElement>(null);
  /** After "Show more": the position of the first new offering, which takes focus once it is shown. */
  const focusFrom = useRef<number | null>(null);
  const items = useMemo(() => list.data?.pages.flatMap((page) => page.items) ?? [], [list.data]);

  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || list.isFetchingNextPage) return;
    focusFrom.current = null;
    // A failed page keeps focus on its "Try again"; an empty last one leaves it to the end of the list.
    if (list.isFetchNextPageError) return;
    const first = items[from];
    (first ? links.current.get(first.id) : end.current)?.focus();
  }, [items, list.isFetchingNextPage, list.isFetchNextPageError]);

  if (list.isPending) return <Loading label="Loading offerings…" />;
  if (list.data === undefined) {
    if (list.error instanceof NotOffered) return notOffered;
    return (
      <ErrorNotice title="The offerings could not be loaded">
        <p>{messageOf(list.error)}</p>
        <button type="button" className="button" onClick={() => void list.refetch()}>
          Try again
        </button>
      </ErrorNotice>
    );
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
    focusFrom.current = items.length;
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
                if (element) links.current.set(offering.id, element);
                else links.current.delete(offering.id);
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
        <p className="hint" ref={end} tabIndex={-1}>
          {items.length === 1 ? 'That is the only offering.' : `All ${items.length} offerings are shown.`}
        </p>
      )}
    </>
  );
}
