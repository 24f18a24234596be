import { Link } from 'react-router';
import { usePageTitle } from '../../components/ui/page-title';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section className="narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <Link to="/" className="button">
        Go to the start page
      </Link>
    </section>
  );
}
