import { useState } from 'react';
import { useLoaderData } from 'react-router';
import type { SignInFailure } from '../../lib/session';
import { usePageTitle } from '../../components/ui/page-title';
import { useServices } from '../../lib/services';
import type { CallbackData } from '../router';

const messages: Record<SignInFailure, { title: string; text: string }> = {
  declined: {
    title: 'You did not allow access',
    text: 'Asset Manager needs your permission to show and manage your files. Sign in again and choose Allow to continue.',
  },
  state: {
    title: 'This sign-in link is no longer valid',
    text: 'It was already used, or it was started in another tab or browser. Start the sign-in again from here.',
  },
  expired: {
    title: 'The sign-in took too long',
    text: 'The sign-in code expired or was already used before the app could finish. Please sign in again.',
  },
  unreachable: {
    title: 'The platform could not be reached',
    text: 'Your sign-in could not be completed because the platform did not answer. Check your connection and try again.',
  },
  other: {
    title: 'Sign-in did not complete',
    text: 'Something went wrong while finishing your sign-in. Please try again.',
  },
};

/**
 * The return from the platform's sign-in. The loader does the work (once, even under StrictMode); this
 * page only appears when it failed, and every failure ends on words and a way forward.
 */
export function CallbackPage() {
  const { failure } = useLoaderData<CallbackData>();
  const { session } = useServices();
  const [starting, setStarting] = useState(false);
  const message = messages[failure];
  usePageTitle(message.title);
  return (
    <section className="narrow">
      <div className="notice notice-error" role="alert">
        <h1>{message.title}</h1>
        <p>{message.text}</p>
        <button
          type="button"
          className="button primary"
          disabled={starting}
          onClick={() => {
            setStarting(true);
            void session.signIn('/').catch(() => setStarting(false));
          }}
        >
          Try again
        </button>
      </div>
    </section>
  );
}
