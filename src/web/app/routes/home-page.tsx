import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLoaderData, useLocation } from 'react-router';
import { accountQuery, entityFilesQuery } from '../../features/entities/api/queries';
import { entityHref, entityKinds } from '../../../shared/entities/entity-kinds';
import { OpenByNumber } from '../../features/entities/open-by-number';
import { ReviewBadge } from '../../features/review/review-badge';
import { reviewCountsQuery } from '../../features/review/review-queries';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { messageOf } from '../../lib/platform/errors';
import type { Account } from '../../lib/platform/model';
import type { SignOutOutcome } from '../../lib/session';
import { useServices } from '../../lib/services';

/** After a sign-out the platform could not be told about: what that means for the person. */
const signOutNotes: Partial<Record<SignOutOutcome, string>> = {
  not_offered:
    'You are signed out of Asset Manager. This platform does not let apps end its own sign-in: on a shared computer, also sign out on the platform’s website.',
  unreachable:
    'You are signed out of Asset Manager, but the platform could not be reached to end your session there. It ends by itself when it expires; on a shared computer, also sign out on the platform’s website.',
};

function Landing() {
  const { session } = useServices();
  const [starting, setStarting] = useState(false);
  const signedOut = (useLocation().state as { signedOut?: SignOutOutcome } | null)?.signedOut;
  const note = signedOut ? signOutNotes[signedOut] : undefined;
  usePageTitle('Welcome');
  return (
    <section className="landing narrow">
      {note && (
        <p className="notice notice-warning" role="status">
          {note}
        </p>
      )}
      <h1>Your investment documents, in one place</h1>
      <p className="lead">
        Asset Manager keeps the files of your investment platform account: product logos, cover images and
        pitch decks for issuers; identity and accreditation documents for investors; and the review queue for
        admins.
      </p>
      <button
        type="button"
        className="button primary large"
        disabled={starting}
        onClick={() => {
          setStarting(true);
          void session.signIn('/').catch(() => setStarting(false));
        }}
      >
        {starting ? 'Opening sign-in…' : 'Sign in'}
      </button>
    </section>
  );
}

type OwnedEntity = Account['entities'][number];

/**
 * Where an accreditation's review stands: as the account list says it (ours), else as the
 * accreditation's own read says it, where the platform has one; no badge when neither says.
 */
function AccreditationReview({ entity }: { entity: OwnedEntity }) {
  const { platform } = useServices();
  const read = useInfiniteQuery({
    ...entityFilesQuery(platform, { type: entity.type, id: entity.id }),
    enabled: entity.review === undefined,
  });
  const status = entity.review ?? read.data?.review?.status;
  return status ? (
    <>
      {' '}
      <ReviewBadge status={status} />
    </>
  ) : null;
}

function EntityList({ account }: { account: Account }) {
  const groups = entityKinds
    .map((kind) => ({ kind, entities: account.entities.filter((e) => e.type === kind.type) }))
    .filter((group) => group.entities.length > 0);

  if (groups.length === 0) {
    return (
      <p className="empty">
        {account.user.role === 'admin' ? (
          <>
            Admins own no files of their own. <Link to="/review">Open the review queue</Link> to check
            investors&apos; accreditation documents.
          </>
        ) : (
          'Nothing here yet. Products, investments and accreditations you own on the platform appear here.'
        )}
      </p>
    );
  }
  return (
    <div className="entity-groups">
      {groups.map(({ kind, entities }) => (
        <section key={kind.type} className="card" aria-labelledby={`group-${kind.slug}`}>
          <h2 id={`group-${kind.slug}`}>{kind.plural}</h2>
          <ul className="link-list">
            {entities.map((entity) => (
              <li key={entity.id}>
                <Link to={entityHref(entity.type, entity.id)}>{entity.name}</Link>
                {entity.type === 'Accreditation' && <AccreditationReview entity={entity} />}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** What the home says while the account loads (the page the proxy paints is the same: index-page.ts). */
const homeLead = 'Choose what you want to manage files for.';

/**
 * The home while the account loads. Where the platform is known to say who is signed in, the page is
 * laid out already, with room kept for the greeting, so nothing moves when it comes; else (it may not
 * say, and the page is then another) only the loading status.
 */
function HomeLoading() {
  const { platform } = useServices();
  const loading = <Loading label="Loading your files…" />;
  if (platform.capabilities.current.me !== true) return loading;
  return (
    <>
      <div className="heading-placeholder" aria-hidden="true" />
      <p className="lead">{homeLead}</p>
      {loading}
    </>
  );
}

function Home() {
  const { platform } = useServices();
  const account = useQuery(accountQuery(platform));
  usePageTitle('Home');
  if (account.isPending) return <HomeLoading />;
  if (account.isError) {
    return (
      <ErrorNotice title="Your account could not be loaded">
        <p>{messageOf(account.error)}</p>
        <button type="button" className="button" onClick={() => void account.refetch()}>
          Try again
        </button>
      </ErrorNotice>
    );
  }
  if (account.data === null) {
    return (
      <>
        <h1>Open your files</h1>
        <OpenByNumber intro="This platform does not tell the app what you own, so open a product, investment or other record by its number. You find the number in the platform’s own pages, or in a link you were sent." />
      </>
    );
  }
  return (
    <>
      <h1>Hello, {account.data.user.name}</h1>
      <p className="lead">{homeLead}</p>
      {account.data.user.role === 'investor' && (
        <p>
          <Link to="/offerings" className="button">
            Browse offerings
          </Link>
        </p>
      )}
      {account.data.user.role === 'admin' && <ReviewQueueLink />}
      <EntityList account={account.data} />
    </>
  );
}

/** The admin's way to the queue, with how many wait where the platform counts them (ours). */
function ReviewQueueLink() {
  const { platform } = useServices();
  const counts = useQuery(reviewCountsQuery(platform));
  const waiting = counts.data ? ` (${counts.data.waiting} waiting)` : '';
  return (
    <p>
      <Link to="/review" className="button">
        Review queue{waiting}
      </Link>
    </p>
  );
}

/** `/`: the signed-out landing page, or the signed-in home with the user's entities. */
export function HomePage() {
  const { signedIn } = useLoaderData<{ signedIn: boolean }>();
  return signedIn ? <Home /> : <Landing />;
}
