import { entityHref } from '../../../shared/entities/entity-kinds';
import { OpenByNumber } from '../../features/entities/open-by-number';
import { OfferingsList } from '../../features/offerings/components/offerings-list';
import { usePageTitle } from '../../components/ui/page-title';

const productHref = (id: number) => entityHref('Product', id);

/**
 * `/offerings`: the products the person may read, each leading to its page (and from there to its
 * investments and team members). On a platform that lists none, the way in by number.
 */
export function OfferingsPage() {
  usePageTitle('Offerings');
  return (
    <>
      <h1>Offerings</h1>
      <p className="lead">The products on the platform. Open one to see its files, investments and team.</p>
      <OfferingsList
        productHref={productHref}
        notOffered={
          <OpenByNumber intro="This platform does not list its offerings, so open a product by its number. You find the number in the platform’s own pages, or in a link you were sent." />
        }
      />
    </>
  );
}
