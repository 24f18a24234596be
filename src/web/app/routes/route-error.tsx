import { Link, useRouteError } from 'react-router';
import { messageOf } from '../../lib/platform/errors';

/** The last resort for an error no page handled: never a blank screen. */
export function RouteError() {
  const error = useRouteError();
  return (
    <section className="narrow">
      <div className="notice notice-error" role="alert">
        <h1>Something went wrong</h1>
        <p>{messageOf(error)}</p>
        <p>
          <button type="button" className="button" onClick={() => window.location.reload()}>
            Reload the page
          </button>{' '}
          <Link to="/">Go to the start page</Link>
        </p>
      </div>
    </section>
  );
}
