import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLoaderData } from 'react-router';
import type { Me } from '../../../shared/api/me';
import { meQuery } from '../../features/entities/api/queries';
import { entityHref, entityKinds } from '../../features/entities/entity-kinds';
import { usePageTitle } from '../../components/ui/page-title';
import { ErrorNotice, Loading } from '../../components/ui/status';
import { messageOf } from '../../lib/api-error';
import { useServices } from '../../lib/services';

function Landing() {
  const { session } = useServices();
  const [starting, setStarting] = useState(false);
  usePageTitle('Welcome');
  return (
    <section className="landing narrow">
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

function EntityList({ me }: { me: Me }) {
  const groups = entityKinds
    .map((kind) => ({ kind, entities: me.entities.filter((e) => e.type === kind.type) }))
    .filter((group) => group.entities.length > 0);

  if (groups.length === 0) {
    return (
      <p className="empty">
        {me.user.role === 'admin' ? (
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
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function Home() {
  const { api } = useServices();
  const me = useQuery(meQuery(api));
  usePageTitle('Home');
  if (me.isPending) return <Loading label="Loading your files…" />;
  if (me.isError) {
    return (
      <ErrorNotice title="Your account could not be loaded">
        <p>{messageOf(me.error)}</p>
        <button type="button" className="button" onClick={() => void me.refetch()}>
          Try again
        </button>
      </ErrorNotice>
    );
  }
  return (
    <>
      <h1>Hello, {me.data.user.name}</h1>
      <p className="lead">Choose what you want to manage files for.</p>
      <EntityList me={me.data} />
    </>
  );
}

/** `/`: the signed-out landing page, or the signed-in home with the user's entities. */
export function HomePage() {
  const { signedIn } = useLoaderData<{ signedIn: boolean }>();
  return signedIn ? <Home /> : <Landing />;
}
