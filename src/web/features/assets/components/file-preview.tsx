import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { Crop } from '../../../../shared/assets/crop';
import type { StoredFile, Variant } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { previewAddressQuery } from '../api/asset-queries';
import { kindOf } from '../file-kind';
import { viewableAs } from '../viewable';
import { CroppedImage } from './cropped-image';
import { previewWidth } from './preview-width';

/** What a card shows: the image (cropped or whole), a PDF's thumbnail, or nothing. */
function previewSource(file: StoredFile): { id: number; variant: Variant; crop?: Crop } | null {
  if (viewableAs(file) === 'image')
    return { id: file.id, variant: file.crop ? 'cropped' : 'preview', crop: file.crop };
  if (file.thumbnailId !== undefined) return { id: file.thumbnailId, variant: 'preview' };
  return null;
}

/** What the file is, as the platform sniffed it where it says (a text file named fake.pdf: Text). */
function TypeIcon({ file }: { file: StoredFile }) {
  return (
    <div className="preview preview-icon" aria-hidden="true">
      {kindOf(file).badge}
    </div>
  );
}

/**
 * A card's picture of its file: a small rendition of the image or of a PDF's thumbnail, else the
 * file's type. A signed address that stops working is asked for afresh once per look of the file.
 */
export function FilePreview({ file }: { file: StoredFile }) {
  const { platform } = useServices();
  const source = previewSource(file);
  const address = useQuery({
    ...previewAddressQuery(
      platform,
      { id: source?.id ?? file.id, version: file.version },
      source?.variant ?? 'preview',
      previewWidth,
    ),
    enabled: source !== null,
  });
  // A signed address ends when the file changes (H2): one that fails is asked for afresh, once per
  // look of the file; a second failure leaves the type badge.
  const retried = useRef(new Set<string>());
  const [brokenUrl, setBrokenUrl] = useState<string>();
  // A PDF's thumbnail still being made has no address yet: the type shows until it is ready (the
  // query asks again, as the platform says).
  const shown = address.data && 'url' in address.data ? address.data : undefined;
  const failed = () => {
    if (!retried.current.has(file.version)) {
      retried.current.add(file.version);
      void address.refetch();
    } else setBrokenUrl(shown?.url);
  };
  if (!source || !shown || shown.url === brokenUrl) return <TypeIcon file={file} />;
  const alt = `Preview of ${file.name}`;
  // A platform without renditions sends the original: the browser shows the crop itself (lazily).
  if (!shown.rendered && source.crop) {
    return <CroppedImage className="preview" src={shown.url} crop={source.crop} alt={alt} onError={failed} />;
  }
  return <img className="preview" src={shown.url} alt={alt} loading="lazy" onError={failed} />;
}
