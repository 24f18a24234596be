import { useEffect, useRef, useState } from 'react';
import Cropper, { type Area } from 'react-easy-crop';
import 'react-easy-crop/react-easy-crop.css';
import type { Crop } from '../../../../shared/assets/crop';
import type { CropAspect } from '../../../../shared/assets/file-types';
import { Dialog } from '../../../components/ui/dialog';

interface Preset {
  label: string;
  ratio: number | 'original';
}

/** A free crop (logos, documents) offers common shapes; a fixed one (avatar, cover) only its own. */
function presetsFor(aspect: CropAspect): Preset[] {
  if (aspect.ratio !== null) return [];
  return [
    { label: 'Original', ratio: 'original' },
    { label: 'Square', ratio: 1 },
    { label: '4:3', ratio: 4 / 3 },
    { label: '16:9', ratio: 16 / 9 },
    { label: '3:1', ratio: 3 },
  ];
}

const sameArea = (a: Area, b: Crop) =>
  Math.round(a.x) === b.x &&
  Math.round(a.y) === b.y &&
  Math.round(a.width) === b.width &&
  Math.round(a.height) === b.height;

/**
 * Frames an image before upload, or again later ("Edit crop"). The result is `meta.crop` in pixels of
 * the image as displayed upright (EXIF orientation applied), which is how the platform cuts it; the
 * image itself is never redrawn, so large phone photos never meet a canvas limit.
 *
 * Loaded on demand (performance.md W2): react-easy-crop is not part of the first page.
 */
export default function CropDialog({
  src,
  fileName,
  aspect,
  initial,
  saveLabel,
  batch,
  onSkipRest,
  onCancel,
  onSave,
  returnFocus,
}: {
  src: string;
  fileName: string;
  aspect: CropAspect;
  initial?: Crop;
  saveLabel: string;
  /** Where this image is in a batch chosen together ("Image 2 of 3"). */
  batch?: { position: number; total: number };
  /** Uploads this image and the rest of the batch uncropped. */
  onSkipRest?: () => void;
  onCancel: () => void;
  /** null: use the whole image. */
  onSave: (crop: Crop | null) => void;
  returnFocus?: () => HTMLElement | null;
}) {
  const presets = presetsFor(aspect);
  // Fixed for the dialog's life: react-easy-crop re-frames whenever this prop is a new object.
  const [initialArea] = useState(initial);
  const [position, setPosition] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  const [preset, setPreset] = useState<Preset['ratio']>(
    initial ? initial.width / initial.height : (presets[0]?.ratio ?? 'original'),
  );
  const area = useRef<Area | null>(null);
  // The cropper measures its box when the image loads; inside a dialog that is not open yet the box is
  // 0×0 and a restored crop turns into NaN. So it mounts one frame after the dialog opens.
  const [dialogOpen, setDialogOpen] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => setDialogOpen(true));
    return () => cancelAnimationFrame(frame);
  }, []);
  // Restoring a crop from stored pixels and reading it back drifts by rounding: unless the person
  // moves something, the stored pixels are saved as they were.
  const touched = useRef(false);

  const ratio =
    aspect.ratio ?? (preset === 'original' ? (natural ? natural.width / natural.height : undefined) : preset);

  function save() {
    if (!touched.current && initial) return onSave(initial);
    const a = area.current;
    if (!a || !natural) return onSave(initial ?? null);
    const crop: Crop = {
      x: Math.max(0, Math.round(a.x)),
      y: Math.max(0, Math.round(a.y)),
      width: Math.min(natural.width, Math.round(a.width)),
      height: Math.min(natural.height, Math.round(a.height)),
    };
    onSave(initial && sameArea(a, initial) ? initial : crop);
  }

  return (
    <Dialog title={`Crop ${fileName}`} onClose={onCancel} wide returnFocus={returnFocus}>
      {batch && (
        <p className="batch-position">
          Image {batch.position} of {batch.total}
        </p>
      )}
      <p className="hint">
        Drag or use the arrow keys to move the image, and the slider to zoom. The original file is kept
        unchanged; only the frame is saved.
      </p>
      <div className="cropper">
        {dialogOpen && (
          <Cropper
            image={src}
            crop={position}
            zoom={zoom}
            aspect={ratio ?? 1}
            cropShape={aspect.round ? 'round' : 'rect'}
            showGrid={!aspect.round}
            disableAutomaticStylesInjection
            initialCroppedAreaPixels={initialArea}
            keyboardStep={10}
            onCropChange={setPosition}
            onZoomChange={setZoom}
            onInteractionStart={() => (touched.current = true)}
            onCropComplete={(_percent, pixels) => (area.current = pixels)}
            onMediaLoaded={(size) => setNatural({ width: size.naturalWidth, height: size.naturalHeight })}
            mediaProps={{ alt: `${fileName}, to crop` }}
            cropperProps={{ role: 'group', 'aria-label': 'Crop frame: arrow keys move the image' } as object}
          />
        )}
      </div>
      <div className="crop-controls">
        <label className="field-inline">
          Zoom
          <input
            type="range"
            min={1}
            max={4}
            step={0.05}
            value={zoom}
            onChange={(event) => {
              touched.current = true;
              setZoom(Number(event.target.value));
            }}
          />
        </label>
        {presets.length > 0 && (
          <fieldset className="presets">
            <legend>Shape</legend>
            {presets.map((p) => (
              <label key={p.label} className="chip">
                <input
                  type="radio"
                  name="crop-shape"
                  checked={preset === p.ratio}
                  onChange={() => {
                    touched.current = true;
                    setPreset(p.ratio);
                  }}
                />
                {p.label}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          {batch ? 'Skip this image' : 'Cancel'}
        </button>
        {onSkipRest && (
          <button type="button" className="button" onClick={onSkipRest}>
            Skip crop for the rest
          </button>
        )}
        <button type="button" className="button" onClick={() => onSave(null)}>
          Use whole image
        </button>
        <button type="button" className="button primary" onClick={save} disabled={!natural}>
          {saveLabel}
        </button>
      </div>
    </Dialog>
  );
}
