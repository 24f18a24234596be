import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Offering } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { logoAddressQuery } from '../api/offerings-queries';

/** Shown at 4rem: twice that in pixels covers high-density phone screens; the platform rounds it up. */
const logoWidth = 160;

/** The first letter of the name, for a product without a logo to show. */
const initialOf = (name: string) => Array.from(name.trim())[0]?.toLocaleUpperCase() ?? '?';

/**
 * A product's logo beside its name, or a neutral tile with its initial when it has none, when the
 * address cannot be had, or when the image does not load: never a broken image. Decorative (`alt=""`):
 * the name beside it says what it is.
 */
export function OfferingLogo({ offering }: { offering: Offering }) {
  const { platform } = useServices();
  const [broken, setBroken] = useState(false);
  const hasLogo = offering.logoId !== undefined;
  const address = useQuery({
    ...logoAddressQuery(platform, offering.logoId ?? 0, logoWidth),
    enabled: hasLogo,
  });
  // The tile keeps its size while the address is on its way, so nothing moves when the logo arrives.
  if (hasLogo && address.isPending) return <span className="offering-logo" aria-hidden="true" />;
  if (!hasLogo || !address.data || broken) {
    return (
      <span className="offering-logo offering-initial" aria-hidden="true">
        {initialOf(offering.name)}
      </span>
    );
  }
  return (
    <img
      className="offering-logo"
      src={address.data.url}
      alt=""
      width={64}
      height={64}
      loading="lazy"
      onError={() => setBroken(true)}
    />
  );
}
