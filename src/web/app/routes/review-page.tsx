import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { AssetCard } from '../../features/assets/components/asset-card';
import { entityHref } from '../../../shared/entities/entity-kinds';
import { DecisionNotices } from '../../features/review/decision-notices';
import { DecisionForm, ReviewItem } from '../../features/review/review-item';
import {
  decisionKey,
  reviewKeys,
  reviewListQuery,
  waitingDecisions,
} from '../../features/review/review-queries';
import { ReviewStatus } from '../../features/review/review-status';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { messageOf, NotOffered } from '../../lib/platform/errors';
import { useServices } from '../../lib/services';

/**
 * `/review`: admins' queue of accreditations waiting for a decision, documents included (private ones
 * too), and beside it the ones decided (`?show=decided`): who decided, when, with which note.
 */
export function ReviewPage() {
  const [params] = useSearchParams();
  const which = params.get('show') === 'decided' ? 'decided' : 'pending';
  usePageTitle(which === 'decided' ? 'Decided accreditations' : 'Review accreditations');
  return (
    <>
      <h1>Review accreditations</h1>
      <nav aria-label="Accreditations" className="tabs">
        <Link to="/review" aria-current={which === 'pending' ? 'page' : undefined}>
          Waiting
        </Link>
        <Link to="/review?show=decided" aria-current={which === 'decided' ? 'page' : undefined}>
          Decided
        </Link>
      </nav>
      <DecisionNotices />
      <ReviewList which={which} />
    </>
  );
}

function ReviewList({ which }: { which: 'pending' | 'decided' }) {
  const { platform } = useServices();
  const list = useInfiniteQuery(reviewListQuery(platform, which));
  waitingDecisions.useWaiting();
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
      <p className="empty">
        {which === 'pending'
          ? 'Nothing to review: every accreditation has a decision.'
          : 'No decisions yet. Decided accreditations appear here.'}
      </p>
    );
  }
  if (which === 'decided') {
    return (
      <>
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
        {more}
      </>
    );
  }
  return (
    <>
      <ul className="review-list">
        {items.map((accreditation) => (
          <ReviewItem
            key={accreditation.id}
            accreditation={accreditation}
            documents={
              accreditation.files.length === 0 ? (
                <p className="empty-slot">No documents uploaded yet.</p>
              ) : (
                <ul className="asset-list" aria-label={`Documents of ${accreditation.name}`}>
                  {accreditation.files.map((file) => (
                    <AssetCard
                      key={file.id}
                      file={file}
                      listKey={reviewKeys.list('pending')}
                      canEdit={false}
                      onForbidden={() => undefined}
                      viewerAside={<DecisionForm accreditation={accreditation} />}
                    />
                  ))}
                </ul>
              )
            }
          />
        ))}
      </ul>
      {more}
    </>
  );
}
