import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useNavigation } from 'react-router';
import { accountQuery } from '../../features/entities/api/queries';
import { keepDraftsThroughSignIn } from '../../lib/drafts';
import { useServices, useSessionEnded, useSignedIn } from '../../lib/services';

const roleNames = { investor: 'Investor', issuer: 'Issuer', admin: 'Admin' } as const;

function UserMenu() {
  const { platform, session, queryClient } = useServices();
  const account = useQuery(accountQuery(platform));
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    const outcome = await session.signOut();
    // Leave the signed-in pages before dropping their data: a page still showing would fetch it again.
    await navigate('/', { replace: true, state: { signedOut: outcome } });
    queryClient.clear();
  }

  return (
    <div className="user-menu">
      <nav aria-label="Main" className="site-nav">
        <NavLink to="/offerings">Offerings</NavLink>
        {account.data?.user.role === 'admin' && <NavLink to="/review">Review queue</NavLink>}
      </nav>
      {/* There from the start, empty until the account comes: its room does not appear late (styles.css). */}
      <span className="user-name">
        {account.data && (
          <>
            <span className="visually-hidden">Signed in as </span>
            {account.data.user.email} <span className="badge">{roleNames[account.data.user.role]}</span>
          </>
        )}
      </span>
      <button type="button" className="button" onClick={() => void signOut()} disabled={signingOut}>
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}

/**
 * The platform refused the session and it could not be renewed: the page and anything typed stay, and
 * signing in again comes back here with the typing restored (drafts.ts).
 */
function SessionEnded() {
  const { session } = useServices();
  const location = useLocation();
  const [leaving, setLeaving] = useState(false);
  return (
    <div className="notice notice-warning session-ended" role="alert">
      <p>
        Your session ended — sign in again to continue. This page and anything you typed stay as they are.
      </p>
      <button
        type="button"
        className="button primary"
        disabled={leaving}
        onClick={() => {
          setLeaving(true);
          keepDraftsThroughSignIn();
          void session.signIn(location.pathname + location.search).catch(() => setLeaving(false));
        }}
      >
        {leaving ? 'Opening sign-in…' : 'Sign in again'}
      </button>
    </div>
  );
}

export function Layout() {
  const signedIn = useSignedIn();
  const ended = useSessionEnded();
  const navigation = useNavigation();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width="28" height="28" />
          Asset Manager
        </Link>
        {signedIn && <UserMenu />}
      </header>
      {navigation.state === 'loading' && (
        <div className="progress-bar" role="progressbar" aria-label="Loading" />
      )}
      <main id="main" className="page" tabIndex={-1}>
        {ended && <SessionEnded />}
        <Outlet />
      </main>
    </>
  );
}
