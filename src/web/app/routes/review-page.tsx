import {
  keepPreviousData,
  useInfiniteQuery,
  type InfiniteData,
  type UseInfiniteQueryResult,
} from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AssetCard } from '../../features/assets/components/asset-card';
import { entityHref } from '../../../shared/entities/entity-kinds';
import { DecisionNotices } from '../../features/review/decision-notices';
import { DecisionForm, flaggedReason, ReviewItem } from '../../features/review/review-item';
import { QualityFlags } from '../../components/ui/quality-flags';
import {
  decisionKey,
  reviewKeys,
  reviewListAt,
  reviewListQuery,
  waitingDecisions,
} from '../../features/review/review-queries';
import { ReviewStatus } from '../../features/review/review-status';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { documentLabel } from '../../lib/document-label';
import { shownOnly } from '../../lib/file-lists';
import { messageOf, NotOffered } from '../../lib/platform/errors';
import type { AccreditationForReview, ReviewCounts, ReviewPage } from '../../lib/platform/model';
import { useServices } from '../../lib/services';

type Which = 'pending' | 'decided';

/** How long typing pauses before the queue is searched. */
const searchDelayMs = 300;

/**
 * `/review`: admins' queue of accreditations waiting for a decision, oldest first, documents included
 * (private ones too), and beside it the ones decided (`?show=decided`): who decided, when, why.
 * `?q=` narrows both to an investor's name or email, where the platform searches (ours).
 */
export function ReviewPage() {
  const [params, setParams] = useSearchParams();
  const { which, search } = reviewListAt(params);
  const { platform } = useServices();
  // While a new search is on its way the cards of the last answer stay, so a card the admin is
  // working on (a rejection begun, its reason chosen) keeps its state when the answer still holds it.
  const list = useInfiniteQuery({
    ...reviewListQuery(platform, which, search),
    placeholderData: keepPreviousData,
  });
  const counts = list.data?.pages[0]?.counts;
  usePageTitle(which === 'decided' ? 'Decided accreditations' : 'Review accreditations');
  const tab = (to: Which) => {
    const next = new URLSearchParams();
    if (to === 'decided') next.set('show', 'decided');
    if (search) next.set('q', search);
    return `/review${next.size > 0 ? `?${next}` : ''}`;
  };
  return (
    <>
      <h1>Review accreditations</h1>
      <nav aria-label="Accreditations" className="tabs">
        <Link to={tab('pending')} aria-current={which === 'pending' ? 'page' : undefined}>
          {tabName('Waiting', counts, 'waiting')}
        </Link>
        <Link to={tab('decided')} aria-current={which === 'decided' ? 'page' : undefined}>
          {tabName('Decided', counts, 'decided')}
        </Link>
      </nav>
      <SearchBox
        initial={search}
        onSearch={(q) =>
          setParams(
            (current) => {
              const next = new URLSearchParams(current);
              if (q) next.set('q', q);
              else next.delete('q');
              return next;
            },
            { replace: true },
          )
        }
      />
      <DecisionNotices />
      <ReviewList which={which} search={search} list={list} />
    </>
  );
}

/** "Waiting (3)": the count where the platform gives one. */
const tabName = (name: string, counts: ReviewCounts | undefined, key: 'waiting' | 'decided') =>
  counts ? `${name} (${counts[key]})` : name;

/** Searches as the admin types, once typing pauses (the address keeps it: `?q=`). */
function SearchBox({ initial, onSearch }: { initial: string; onSearch: (q: string) => void }) {
  const [value, setValue] = useState(initial);
  const inputId = useId();
  const latest = useRef(onSearch);
  useEffect(() => {
    latest.current = onSearch;
  });
  useEffect(() => {
    const q = value.trim();
    if (q === initial) return;
    const timer = setTimeout(() => latest.current(q), searchDelayMs);
    return () => clearTimeout(timer);
  }, [value, initial]);
  return (
    <form role="search" className="review-search" onSubmit={(event) => event.preventDefault()}>
      <label htmlFor={inputId}>Search by investor name or email</label>
      <input id={inputId} type="search" value={value} onChange={(event) => setValue(event.target.value)} />
    </form>
  );
}

type ListQuery = UseInfiniteQueryResult<InfiniteData<ReviewPage, unknown>>;

/** The first control of a card, where focus goes after the decision on the one before. */
const firstControlOf = (id: number) =>
  document
    .getElementById(`accreditation-${id}`)
    ?.querySelector<HTMLElement>('button, a[href], input, textarea, select');

/** What an empty list says: nothing matches the search, the queue is empty, or nothing is decided yet. */
function emptyMessage(which: Which, search: string) {
  if (search)
    return `No accreditation ${which === 'pending' ? 'waits' : 'was decided'} for an investor matching “${search}”.`;
  return which === 'pending'
    ? 'The queue is empty: nothing waits for a decision.'
    : 'No decisions yet. Decided accreditations appear here.';
}

/** Decided accreditations: each leads to its page, with who sent it and the decision. */
function DecidedList({ items }: { items: AccreditationForReview[] }) {
  return (
    <ul className="review-list">
      {items.map((accreditation) => (
        <li key={accreditation.id} className="card">
          <h2>
            <Link to={entityHref('Accreditation', accreditation.id)}>{accreditation.name}</Link>
          </h2>
          <p className="hint">
            From {accreditation.owner.name} ({accreditation.owner.email})
          </p>
          {accreditation.review && <ReviewStatus review={accreditation.review} forInvestor={false} />}
        </li>
      ))}
    </ul>
  );
}

function ReviewList({ which, search, list }: { which: Which; search: string; list: ListQuery }) {
  const waiting = waitingDecisions.useWaiting();
  // After a decision: the card to move focus to (its neighbour), or null for the empty message.
  const [focusNext, setFocusNext] = useState<{ id: number | null } | null>(null);
  const emptyRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!focusNext) return;
    const target = focusNext.id === null ? emptyRef.current : firstControlOf(focusNext.id);
    if (target) {
      target.focus();
      setFocusNext(null);
    }
    // Again whenever the list is drawn anew: the card decided on leaves it first.
  }, [focusNext, waiting, list.data]);
  if (list.isPending) return <Loading label="Loading the review queue…" />;
  if (list.error instanceof NotOffered) {
    return <p className="notice">{list.error.message} Accreditations are reviewed on the platform itself.</p>;
  }
  if (list.isError) {
    return (
      <ErrorNotice title="The review queue could not be loaded">
        <p>{messageOf(list.error)}</p>
      </ErrorNotice>
    );
  }
  const items = list.data.pages
    .flatMap((page) => page.items)
    .filter((a) => which === 'decided' || !waitingDecisions.isWaiting(decisionKey(a.id)));
  const more = list.hasNextPage && (
    <button
      type="button"
      className="button"
      disabled={list.isFetchingNextPage}
      onClick={() => void list.fetchNextPage()}
    >
      {list.isFetchingNextPage ? 'Loading…' : 'Show more'}
    </button>
  );
  if (items.length === 0 && !list.hasNextPage) {
    return (
      <p className="empty" ref={emptyRef} tabIndex={-1}>
        {emptyMessage(which, search)}
      </p>
    );
  }
  if (which === 'decided') {
    return (
      <>
        <DecidedList items={items} />
        {more}
      </>
    );
  }
  /** The card after this one (or before it, for the last), else none: the empty message. */
  const neighbourOf = (id: number) => {
    const at = items.findIndex((a) => a.id === id);
    return { id: (items[at + 1] ?? items[at - 1])?.id ?? null };
  };
  return (
    <>
      <ul className="review-list">
        {items.map((accreditation) => (
          <ReviewItem
            key={accreditation.id}
            accreditation={accreditation}
            onDecided={() => setFocusNext(neighbourOf(accreditation.id))}
            documents={<Documents accreditation={accreditation} />}
          />
        ))}
      </ul>
      {more}
    </>
  );
}

/** The queue's documents: shown, never changed from their cards (they cannot be edited here). */
const reviewDocuments = shownOnly(reviewKeys.all);

/**
 * An accreditation's files, each labelled by its kind (and a licence's side); those added since the
 * last decision are marked "New", so a reviewer sees what answers the rejection.
 */
function Documents({ accreditation }: { accreditation: AccreditationForReview }) {
  if (accreditation.files.length === 0) return <p className="empty-slot">No documents uploaded yet.</p>;
  const decided = accreditation.review?.lastDecision?.fileIds;
  return (
    <ul className="asset-list" aria-label={`Documents of ${accreditation.name}`}>
      {accreditation.files.map((file) => (
        <AssetCard
          key={file.id}
          file={file}
          list={reviewDocuments}
          canEdit={false}
          onForbidden={() => undefined}
          kind={documentLabel(file)}
          isNew={decided !== undefined && !decided.includes(file.id)}
          showQuality
          viewerAside={
            <>
              {(file.qualityIssues?.length ?? 0) > 0 && (
                <p className="viewer-flags">
                  The platform’s photo check: <QualityFlags issues={file.qualityIssues} />
                </p>
              )}
              <DecisionForm accreditation={accreditation} suggestedReason={flaggedReason(accreditation)} />
            </>
          }
        />
      ))}
    </ul>
  );
}
