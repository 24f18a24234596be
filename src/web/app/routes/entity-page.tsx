import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ComponentProps, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type FileTypeInfo, fileTypesFor, slotHint } from '../../../shared/assets/file-types';
import { focusCard } from '../../features/assets/components/card-focus';
import { AssetSlot } from '../../features/assets/components/asset-slot';
import { PageDrop } from '../../features/assets/components/page-drop';
import {
  accountQuery,
  entityFileList,
  entityKeys,
  uploadedHereList,
  uploadedHereQuery,
  useEntityFiles,
} from '../../features/entities/api/queries';
import {
  entityHref,
  entityOf,
  hasRelatedLine,
  kindOfType,
  outlineSlot,
} from '../../../shared/entities/entity-kinds';
import { DecisionNotices } from '../../features/review/decision-notices';
import { HistoryList } from '../../features/review/history-list';
import { ReviewChecklist } from '../../features/review/review-checklist';
import { DecisionForm } from '../../features/review/review-item';
import { decisionKey, reviewKeys, waitingDecisions } from '../../features/review/review-queries';
import { ReviewStatus } from '../../features/review/review-status';
import { slotNeed } from '../../features/review/review-words';
import { usePageTitle } from '../../components/ui/page-title';
import { ShowMore } from '../../components/ui/show-more';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { rememberOpened } from '../../lib/browser-memory';
import { messageOf } from '../../lib/platform/errors';
import type { Account, EntityFiles, EntityRef, Review, StoredFile } from '../../lib/platform/model';
import { useServices } from '../../lib/services';
import { NotFoundPage } from './not-found-page';

/** `/products/7`, `/accreditations/3`, …: one entity and its files. */
export function EntityPage() {
  const params = useParams();
  const found = entityOf(params.kind ?? '', params.id ?? '');
  if (!found) return <NotFoundPage />;
  const { kind, id } = found;
  return <Entity key={`${kind.type}:${id}`} entity={{ type: kind.type, id }} label={kind.singular} />;
}

function Entity({ entity: ref, label }: { entity: EntityRef; label: string }) {
  const { entity, listed, uploadedHere, account } = useEntityReads(ref);
  // Without a list of what the person owns, the platform's 403 on a change is what says "read only".
  const [forbidden, setForbidden] = useState(false);
  // The same from one drawing to the next, so that a change to one file redraws that file's card only
  // (AssetCard is memoised).
  const onForbidden = useCallback(() => setForbidden(true), []);
  const fileList = useMemo(() => (listed ? entityFileList(ref) : uploadedHereList(ref)), [listed, ref]);
  const name = entity.data?.name;
  const title = name ?? `${label} ${ref.id}`;
  usePageTitle(title);

  useRememberOpened(ref, entity.data !== undefined, name);
  useReviewKeptFresh(ref, entity.dataUpdatedAt, entity.data?.review?.status, account.data);

  if (entity.isPending) return <EntityLoading entity={ref} label={label} />;
  // Once the entity is there, a page after the first that fails says so beside its "Try again".
  if (entity.data === undefined) return <EntityError label={label} error={entity.error} />;
  const list = listed ? entity.data : uploadedHere.data;
  const ownsIt = account.data?.entities.some((e) => e.type === ref.type && e.id === ref.id);
  // Known from the platform's list when it has one; otherwise assumed until the platform refuses.
  const canEdit = !forbidden && (account.data === null ? true : (ownsIt ?? false));
  // Said beside the kind, on its line (only the owner can change the files): a line of its own above
  // the slots would push them down as the account comes, away from where the outline showed them.
  const viewOnly = !forbidden && account.data != null && !ownsIt;
  const files = list?.files ?? [];
  const slots = fileTypesFor(ref.type).filter(
    (fileType) => canEdit || files.some((file) => file.fileType === fileType.fileType),
  );
  const review = entity.data.review;
  const isAdmin = account.data?.user.role === 'admin';
  // The whole page takes dropped files, not only the slots (page-drop.tsx).
  return (
    <PageDrop what={label.toLowerCase()} enabled={canEdit}>
      <EntityHeading label={label} name={name ?? `number ${ref.id}`} viewOnly={viewOnly} />
      {hasRelatedLine(ref.type) && <RelatedLine related={entity.data.related ?? []} />}
      {review && (
        <EntityReview
          entity={ref}
          title={title}
          review={review}
          forInvestor={ownsIt ?? account.data === null}
          isAdmin={isAdmin}
          canEdit={canEdit}
        />
      )}
      <FilesNotices
        label={label}
        listed={listed}
        forbidden={forbidden}
        loadingHere={!listed && uploadedHere.isPending}
      />
      {/* Someone who can only look is shown what there is: no rules, no empty slots. */}
      {!canEdit && listed && slots.length === 0 && <p className="empty">Nothing shared yet.</p>}
      <Slots
        slots={slots}
        files={files}
        entity={ref}
        review={review}
        slot={{ list: fileList, canEdit, onForbidden }}
      />
      {listed && (
        <MoreFiles
          files={files}
          more={entity.hasNextPage}
          loading={entity.isFetchingNextPage}
          error={entity.isFetchNextPageError ? entity.error : null}
          onMore={() => void entity.fetchNextPage()}
        />
      )}
      {ref.type === 'Accreditation' && listed && <HistoryList accreditationId={ref.id} />}
    </PageDrop>
  );
}

/** The entity with its files, the files uploaded from this browser where it has none, and the account. */
function useEntityReads(ref: EntityRef) {
  const { platform } = useServices();
  const entity = useEntityFiles(platform, ref);
  const listed = entity.data !== undefined && entity.data.files !== null;
  // A platform that does not list an entity's files: those uploaded from this browser, read back by id.
  const uploadedHere = useQuery({
    ...uploadedHereQuery(platform, ref),
    enabled: entity.data?.files === null,
  });
  const account = useQuery(accountQuery(platform));
  return { entity, listed, uploadedHere, account };
}

/** An entity opened is remembered (with its name once known): the entities opened lately, where there is no /me to list what the person owns. */
function useRememberOpened(ref: EntityRef, opened: boolean, name: string | undefined) {
  useEffect(() => {
    if (opened) rememberOpened({ ...ref, ...(name ? { name } : {}) });
  }, [opened, ref, name]);
}

/**
 * An accreditation's history grows with every change to its files: read again with the files. A
 * review that moved on since the account list was read (a decision, or an upload answering a
 * rejection): the start page's badge is read again, so it never says something the page does not.
 */
function useReviewKeptFresh(
  ref: EntityRef,
  filesReadAt: number,
  reviewHere: Review['status'] | undefined,
  account: Account | null | undefined,
) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (ref.type === 'Accreditation' && filesReadAt > 0)
      void queryClient.invalidateQueries({ queryKey: reviewKeys.history(ref.id) });
  }, [queryClient, ref, filesReadAt]);

  const reviewListed = account?.entities.find((e) => e.type === ref.type && e.id === ref.id)?.review;
  useEffect(() => {
    if (reviewHere && reviewListed && reviewHere !== reviewListed)
      void queryClient.invalidateQueries({ queryKey: entityKeys.account() });
  }, [queryClient, reviewHere, reviewListed]);
}

/** Where an accreditation's review stands, an admin's decision, and the owner's checklist. */
function EntityReview({
  entity,
  title,
  review,
  forInvestor,
  isAdmin,
  canEdit,
}: {
  entity: EntityRef;
  title: string;
  review: Review;
  forInvestor: boolean;
  isAdmin: boolean;
  canEdit: boolean;
}) {
  const queryClient = useQueryClient();
  const { requirements } = review;
  const reread = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: entityKeys.files(entity) }),
      queryClient.invalidateQueries({ queryKey: entityKeys.account() }),
    ]);
  return (
    <>
      <ReviewStatus review={review} forInvestor={forInvestor} />
      {isAdmin && review.status === 'pending' && (
        <AdminDecision id={entity.id} name={title} etag={review.etag} />
      )}
      {requirements && (
        <ReviewChecklist
          accreditationId={entity.id}
          review={{ ...review, requirements }}
          canEdit={canEdit}
          onChanged={reread}
        />
      )}
    </>
  );
}

/** A slot for each file type shown, with its files and, for an accreditation, what it needs. */
function Slots({
  slots,
  files,
  entity,
  review,
  slot,
}: {
  slots: FileTypeInfo[];
  files: StoredFile[];
  entity: EntityRef;
  review: Review | undefined;
  slot: Pick<ComponentProps<typeof AssetSlot>, 'list' | 'canEdit' | 'onForbidden'>;
}) {
  const requirements = review?.requirements;
  const keptAs = keptAsOf(review);
  return (
    <div className="slots">
      {slots.map((fileType) => (
        <AssetSlot
          key={fileType.fileType}
          entity={entity}
          fileType={fileType}
          files={files.filter((f) => f.fileType === fileType.fileType)}
          {...slot}
          need={requirements ? slotNeed(requirements, fileType.fileType) : undefined}
          keptAs={keptAs}
          sides={requirements !== undefined && fileType.fileType === 'drivers_license'}
        />
      ))}
    </div>
  );
}

function EntityError({ label, error }: { label: string; error: unknown }) {
  return (
    <ErrorNotice title={`This ${label.toLowerCase()} could not be opened`}>
      <p>{messageOf(error)}</p>
      <Link to="/">Back to the start page</Link>
    </ErrorNotice>
  );
}

function EntityHeading({ label, name, viewOnly }: { label: string; name: string; viewOnly: boolean }) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Home</Link> <span aria-hidden="true">/</span> {label}
      </nav>
      <h1>
        <span className="eyebrow">
          {label}
          {viewOnly && ' · view only'}
        </span>{' '}
        {name}
      </h1>
    </>
  );
}

/** What the page says about its files: a platform that does not list them, a refused change. */
function FilesNotices({
  label,
  listed,
  forbidden,
  loadingHere,
}: {
  label: string;
  listed: boolean;
  forbidden: boolean;
  loadingHere: boolean;
}) {
  return (
    <>
      {!listed && (
        <p className="notice">
          This platform does not list the files already stored with this {label.toLowerCase()}. Files uploaded
          from this browser are shown below.
        </p>
      )}
      {forbidden && (
        <p className="hint">You can view these files; the platform did not let you change them.</p>
      )}
      {loadingHere && <Loading label="Loading the files uploaded from this browser…" />}
    </>
  );
}

/**
 * The entities this one leads to, on one line under the title, grouped by kind: "Investments: A, B ·
 * Team members: C". The line is there even while it has none, so the slots never move (see
 * `hasRelatedLine`).
 */
function RelatedLine({ related }: { related: NonNullable<EntityFiles['related']> }) {
  const kinds = [...new Set(related.map((other) => other.type))];
  return (
    <div className="related">
      {related.length > 0 && (
        <nav aria-label="Related">
          {kinds.map((type) => {
            const ofKind = related.filter((other) => other.type === type);
            const kind = kindOfType(type);
            return (
              <span key={type} className="related-kind">
                {ofKind.length === 1 ? kind.singular : kind.plural}:{' '}
                {ofKind.map((other, index) => (
                  <span key={other.id}>
                    {index > 0 && ', '}
                    <Link to={entityHref(other.type, other.id)}>{other.name}</Link>
                  </span>
                ))}
              </span>
            );
          })}
        </nav>
      )}
    </div>
  );
}

/**
 * Which decision a file is kept as evidence of (its accreditation's last decision was made on it):
 * such a file is neither deleted nor replaced. Files of earlier decisions are kept too; the platform
 * refuses their delete (409 `retained`), and the card says so.
 */
function keptAsOf(review: Review | undefined): ((file: StoredFile) => string | undefined) | undefined {
  const decision = review?.lastDecision;
  if (!decision) return undefined;
  const word = decision.status === 'approved' ? 'approval' : 'rejection';
  const kept = new Set(decision.fileIds);
  return (file) => (kept.has(file.id) ? word : undefined);
}

/** An admin decides on the accreditation's own page, with the queue's form (and its undo). */
function AdminDecision({ id, name, etag }: { id: number; name: string; etag?: string }) {
  waitingDecisions.useWaiting();
  return (
    <section className="card" aria-label="Decision">
      <DecisionNotices />
      {!waitingDecisions.isWaiting(decisionKey(id)) && (
        <DecisionForm accreditation={{ id, name, ...(etag ? { etag } : {}) }} />
      )}
    </section>
  );
}

/**
 * The page while its entity loads: what is known of it without the platform (where it sits, what kind
 * of entity it is, its first slot: `outlineSlot`, none on an accreditation) and room for its name, with
 * the loading status where that slot's files will be. The proxy paints the same outline before the app
 * has loaded (index-page.ts in src/proxy), so the page takes shape at once on a slow phone and stays
 * put when the app takes over; what only the platform knows comes with the files, where it moves
 * nothing: the name in the room kept, a review above the slots (hence no slot on an accreditation),
 * related entities below them.
 */
function EntityLoading({ entity, label }: { entity: EntityRef; label: string }) {
  const first = outlineSlot(entity.type);
  const status = <Loading label={`Loading the ${label.toLowerCase()}…`} />;
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Home</Link> <span aria-hidden="true">/</span> {label}
      </nav>
      <h1>
        <span className="eyebrow">{label}</span> <span className="name-placeholder" aria-hidden="true" />
      </h1>
      {hasRelatedLine(entity.type) && <div className="related" />}
      {first ? (
        <div className="slots">
          <section className="slot card">
            <div className="slot-head">
              <h2>{first.label}</h2>
              <p className="hint">{slotHint(first)}</p>
            </div>
            {status}
          </section>
        </div>
      ) : (
        status
      )}
    </>
  );
}

/**
 * The rest of an entity's files, where the platform pages them: "Show more files", pressed or
 * scrolled to. Each page is announced; when the button had focus as the page was asked for (pressed
 * from the keyboard, or reached with Tab, which scrolls it into view), focus moves on to the first
 * new card, wherever its slot is, rather than staying below everything that came.
 */
function MoreFiles({
  files,
  more,
  loading,
  error,
  onMore,
}: {
  files: StoredFile[];
  more: boolean;
  loading: boolean;
  error: Error | null;
  onMore: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const [said, setSaid] = useState('');
  /** While a page is on its way: how many files there were, and whether the button had focus. */
  const asked = useRef<{ from: number; focused: boolean } | null>(null);

  useEffect(() => {
    const page = asked.current;
    if (page === null || loading) return;
    asked.current = null;
    if (error) return; // Said by the alert below, beside "Try again".
    const added = files.slice(page.from);
    setSaid(
      `${added.length === 1 ? '1 more file' : `${added.length} more files`} shown` +
        (more ? '.' : `: all ${files.length} files are shown.`),
    );
    // Focus stayed on the button, or went with it (the last page): on to what came.
    const where = document.activeElement;
    if (page.focused && (where === button.current || where === document.body || where === null))
      added.some((file) => focusCard(file.id));
  }, [files, loading, error, more]);

  function ask() {
    if (loading) return;
    asked.current = { from: files.length, focused: document.activeElement === button.current };
    onMore();
  }

  return (
    <div className="more-files">
      <p className="visually-hidden" role="status">
        {said}
      </p>
      {error && (
        <p className="field-error" role="alert">
          More files could not be loaded. {messageOf(error)}
        </p>
      )}
      {more && (
        <ShowMore
          label="Show more files"
          loading={loading}
          failed={error !== null}
          onMore={ask}
          buttonRef={button}
        />
      )}
    </div>
  );
}
