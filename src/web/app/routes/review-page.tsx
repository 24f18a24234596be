import { useQuery } from '@tanstack/react-query';
import { AssetCard } from '../../features/assets/components/asset-card';
import { reviewKeys, reviewQueueQuery } from '../../features/review/review-queries';
import { ReviewItem } from '../../features/review/review-item';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { messageOf } from '../../lib/api-error';
import { useServices } from '../../lib/services';

/** `/review`: admins' queue of pending accreditations, documents included (private ones too). */
export function ReviewPage() {
  const { api } = useServices();
  const queue = useQuery(reviewQueueQuery(api));
  usePageTitle('Review accreditations');
  if (queue.isPending) return <Loading label="Loading the review queue…" />;
  if (queue.isError) {
    return (
      <ErrorNotice title="The review queue could not be loaded">
        <p>{messageOf(queue.error)}</p>
      </ErrorNotice>
    );
  }
  return (
    <>
      <h1>Review accreditations</h1>
      {queue.data.length === 0 ? (
        <p className="empty">Nothing to review: every accreditation has a decision.</p>
      ) : (
        <ul className="review-list">
          {queue.data.map((accreditation) => (
            <ReviewItem
              key={accreditation.id}
              accreditation={accreditation}
              documents={
                accreditation.assets.length === 0 ? (
                  <p className="empty-slot">No documents uploaded yet.</p>
                ) : (
                  <ul className="asset-list" aria-label={`Documents of ${accreditation.name}`}>
                    {accreditation.assets.map((asset) => (
                      <AssetCard
                        key={asset.id}
                        asset={asset}
                        entityType="Accreditation"
                        entityKey={reviewKeys.pending()}
                        canEdit={false}
                      />
                    ))}
                  </ul>
                )
              }
            />
          ))}
        </ul>
      )}
    </>
  );
}
