import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { fileTypesFor } from '../../../shared/assets/file-types';
import { AssetSlot } from '../../features/assets/components/asset-slot';
import {
  accountQuery,
  entityFilesQuery,
  entityKeys,
  uploadedHereQuery,
} from '../../features/entities/api/queries';
import { entityHref, kindOfSlug, kindOfType } from '../../features/entities/entity-kinds';
import { HistoryList } from '../../features/review/history-list';
import { reviewKeys } from '../../features/review/review-queries';
import { ReviewStatus } from '../../features/review/review-status';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { rememberOpened } from '../../lib/browser-memory';
import { messageOf } from '../../lib/platform/errors';
import type { EntityRef } from '../../lib/platform/model';
import { useServices } from '../../lib/services';
import { NotFoundPage } from './not-found-page';

/** `/products/7`, `/accreditations/3`, …: one entity and its files. */
export function EntityPage() {
  const params = useParams();
  const kind = kindOfSlug(params.kind ?? '');
  const id = Number(params.id);
  if (!kind || !/^\d+$/.test(params.id ?? '') || !Number.isSafeInteger(id) || id <= 0)
    return <NotFoundPage />;
  return <Entity key={`${kind.type}:${id}`} entity={{ type: kind.type, id }} label={kind.singular} />;
}

function Entity({ entity: ref, label }: { entity: EntityRef; label: string }) {
  const { platform } = useServices();
  const entity = useQuery(entityFilesQuery(platform, ref));
  const listed = entity.data !== undefined && entity.data.files !== null;
  // A platform that does not list an entity's files: those uploaded from this browser, read back by id.
  const uploadedHere = useQuery({
    ...uploadedHereQuery(platform, ref),
    enabled: entity.data?.files === null,
  });
  const account = useQuery(accountQuery(platform));
  // Without a list of what the person owns, the platform's 403 on a change is what says "read only".
  const [forbidden, setForbidden] = useState(false);
  const name = entity.data?.name;
  const title = name ?? `${label} ${ref.id}`;
  usePageTitle(title);

  useEffect(() => {
    if (entity.isSuccess) rememberOpened({ ...ref, ...(name ? { name } : {}) });
  }, [entity.isSuccess, ref, name]);

  // An accreditation's history grows with every change to its files: read it again with the files.
  const queryClient = useQueryClient();
  useEffect(() => {
    if (ref.type === 'Accreditation' && entity.dataUpdatedAt > 0)
      void queryClient.invalidateQueries({ queryKey: reviewKeys.history(ref.id) });
  }, [queryClient, ref, entity.dataUpdatedAt]);

  // A review that moved on since the account list was read (a decision, or an upload answering a
  // rejection): the start page's badge is read again, so it never says something the page does not.
  const reviewHere = entity.data?.review?.status;
  const reviewListed = account.data?.entities.find((e) => e.type === ref.type && e.id === ref.id)?.review;
  useEffect(() => {
    if (reviewHere && reviewListed && reviewHere !== reviewListed)
      void queryClient.invalidateQueries({ queryKey: entityKeys.account() });
  }, [queryClient, reviewHere, reviewListed]);

  if (entity.isPending) return <Loading label={`Loading the ${label.toLowerCase()}…`} />;
  if (entity.isError) {
    return (
      <ErrorNotice title={`This ${label.toLowerCase()} could not be opened`}>
        <p>{messageOf(entity.error)}</p>
        <Link to="/">Back to the start page</Link>
      </ErrorNotice>
    );
  }
  const list = listed ? entity.data : uploadedHere.data;
  const listKey = listed ? entityKeys.files(ref) : entityKeys.uploadedHere(ref);
  const ownsIt = account.data?.entities.some((e) => e.type === ref.type && e.id === ref.id);
  // Known from the platform's list when it has one; otherwise assumed until the platform refuses.
  const canEdit = !forbidden && (account.data === null ? true : (ownsIt ?? false));
  const files = list?.files ?? [];
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Home</Link> <span aria-hidden="true">/</span> {label}
      </nav>
      <h1>
        <span className="eyebrow">{label}</span> {name ?? `number ${ref.id}`}
      </h1>
      {entity.data.review && (
        <ReviewStatus review={entity.data.review} forInvestor={ownsIt ?? account.data === null} />
      )}
      {entity.data.related && entity.data.related.length > 0 && (
        <nav aria-label="Related" className="related">
          {entity.data.related.map((other) => (
            <span key={`${other.type}:${other.id}`}>
              {kindOfType(other.type).singular}:{' '}
              <Link to={entityHref(other.type, other.id)}>{other.name}</Link>
            </span>
          ))}
        </nav>
      )}
      {!listed && (
        <p className="notice">
          This platform does not list the files already stored with this {label.toLowerCase()}. Files uploaded
          from this browser are shown below.
        </p>
      )}
      {!canEdit && (
        <p className="hint">
          {forbidden
            ? 'You can view these files; the platform did not let you change them.'
            : 'You can view these files; only the owner can change them.'}
        </p>
      )}
      {!listed && uploadedHere.isPending && <Loading label="Loading the files uploaded from this browser…" />}
      <div className="slots">
        {fileTypesFor(ref.type).map((fileType) => (
          <AssetSlot
            key={fileType.fileType}
            entity={ref}
            fileType={fileType}
            files={files.filter((f) => f.fileType === fileType.fileType)}
            listKey={listKey}
            canEdit={canEdit}
            onForbidden={() => setForbidden(true)}
          />
        ))}
      </div>
      {ref.type === 'Accreditation' && listed && <HistoryList accreditationId={ref.id} />}
    </>
  );
}
