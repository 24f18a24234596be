import { useState } from 'react';
import type { Crop } from '../../../../shared/assets/crop';

/**
 * The crop of an image drawn by the browser, for platforms that send only originals: a frame of the
 * crop's proportions shows the part of the whole image the crop names. Offsets are fractions of the
 * crop, so only the image's own width is needed, and only once it has loaded. Nothing is drawn on a
 * canvas (a phone photo can exceed mobile canvas limits). Styles are set through the DOM, which the
 * page's CSP allows, not through style attributes in markup.
 */
export function CroppedImage({
  src,
  crop,
  alt,
  className,
  onError,
}: {
  src: string;
  crop: Crop;
  alt: string;
  className: string;
  onError: () => void;
}) {
  const [naturalWidth, setNaturalWidth] = useState<number | null>(null);
  const wide = crop.width >= crop.height;
  return (
    <div className={`${className} cropped-image`}>
      <div
        className="cropped-image-frame"
        style={{
          aspectRatio: `${crop.width} / ${crop.height}`,
          width: wide ? '100%' : 'auto',
          height: wide ? 'auto' : '100%',
        }}
      >
        <img
          src={src}
          alt={alt}
          loading="lazy"
          onLoad={(event) => setNaturalWidth(event.currentTarget.naturalWidth)}
          onError={onError}
          style={{
            left: `${(-crop.x / crop.width) * 100}%`,
            top: `${(-crop.y / crop.height) * 100}%`,
            width: naturalWidth === null ? undefined : `${(naturalWidth / crop.width) * 100}%`,
            visibility: naturalWidth === null ? 'hidden' : 'visible',
          }}
        />
      </div>
    </div>
  );
}
