import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Outlet, useNavigate, useNavigation } from 'react-router';
import { meQuery } from '../../features/entities/api/queries';
import { useServices, useSignedIn } from '../../lib/services';

const roleNames = { investor: 'Investor', issuer: 'Issuer', admin: 'Admin' } as const;

function UserMenu() {
  const { api, session, queryClient } = useServices();
  const me = useQuery(meQuery(api));
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    try {
      await session.signOut();
    } finally {
      // Leave the signed-in pages before dropping their data: a page still showing would fetch it again.
      await navigate('/', { replace: true });
      queryClient.clear();
    }
  }

  return (
    <div className="user-menu">
      {me.data?.user.role === 'admin' && (
        <nav aria-label="Admin" className="site-nav">
          <Link to="/review">Review queue</Link>
        </nav>
      )}
      {me.data && (
        <span className="user-name">
          <span className="visually-hidden">Signed in as </span>
          {me.data.user.email} <span className="badge">{roleNames[me.data.user.role]}</span>
        </span>
      )}
      <button type="button" className="button" onClick={() => void signOut()} disabled={signingOut}>
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}

export function Layout() {
  const signedIn = useSignedIn();
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
        <Outlet />
      </main>
    </>
  );
}
