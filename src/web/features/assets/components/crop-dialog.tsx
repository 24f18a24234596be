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
}: CropDialogProps) {
  const presets = presetsFor(aspect);
  // Fixed for the dialog's life: react-easy-crop re-frames whenever this prop is a new object.
  const [initialArea] = useState(initial);
  const [position, setPosition] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [natural, setNatural] = useState<Size | null>(null);
  const [preset, setPreset] = useState<Preset['ratio']>(
    initial ? initial.width / initial.height : (presets[0]?.ratio ?? 'original'),
  );
  const area = useRef<Area | null>(null);
  const dialogOpen = useOneFrameLater();
  const { touched, touch, touching } = useTouched();

  const ratio =
    aspect.ratio ?? (preset === 'original' ? (natural ? natural.width / natural.height : undefined) : preset);

  return (
    <Dialog title={`Crop ${fileName}`} onClose={onCancel} wide returnFocus={returnFocus}>
      <CropIntro batch={batch} />
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
            onInteractionStart={touch}
            onCropComplete={(_percent, pixels) => (area.current = pixels)}
            onMediaLoaded={(size) => setNatural({ width: size.naturalWidth, height: size.naturalHeight })}
            mediaProps={{ alt: `${fileName}, to crop` }}
            cropperProps={{ role: 'group', 'aria-label': 'Crop frame: arrow keys move the image' } as object}
          />
        )}
      </div>
      <CropControls
        zoom={zoom}
        presets={presets}
        preset={preset}
        onZoom={touching(setZoom)}
        onPreset={touching(setPreset)}
      />
      <CropActions
        saveLabel={saveLabel}
        inBatch={batch !== undefined}
        onCancel={onCancel}
        onSkipRest={onSkipRest}
        onWhole={() => onSave(null)}
        // Disabled until the image has loaded: there is nothing to frame before.
        onSave={
          natural ? () => onSave(savedCrop(area.current, natural, initial, touched.current)) : undefined
        }
      />
    </Dialog>
  );
}

interface Size {
  width: number;
  height: number;
}

export interface CropDialogProps {
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
}

/**
 * Whether the person moved anything, and setters that say they did. Restoring a crop from stored
 * pixels and reading it back drifts by rounding: unless the person moves something, the stored
 * pixels are saved as they were.
 */
function useTouched() {
  const touched = useRef(false);
  const touch = () => {
    touched.current = true;
  };
  const touching =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      touch();
      set(value);
    };
  return { touched, touch, touching };
}

/**
 * The cropper measures its box when the image loads; inside a dialog that is not open yet the box is
 * 0×0 and a restored crop turns into NaN. So it mounts one frame after the dialog opens.
 */
function useOneFrameLater() {
  const [later, setLater] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => setLater(true));
    return () => cancelAnimationFrame(frame);
  }, []);
  return later;
}

/**
 * The crop to save, in whole pixels within the image. The stored one as it was unless the person moved
 * something (or the frame came back the same): reading a restored crop back drifts by rounding.
 */
function savedCrop(a: Area | null, natural: Size | null, initial: Crop | undefined, touched: boolean) {
  if (!touched && initial) return initial;
  if (!a || !natural) return initial ?? null;
  const crop: Crop = {
    x: Math.max(0, Math.round(a.x)),
    y: Math.max(0, Math.round(a.y)),
    width: Math.min(natural.width, Math.round(a.width)),
    height: Math.min(natural.height, Math.round(a.height)),
  };
  return initial && sameArea(a, initial) ? initial : crop;
}

/** The zoom slider, and the shapes a free crop offers. */
function CropControls({
  zoom,
  presets,
  preset,
  onZoom,
  onPreset,
}: {
  zoom: number;
  presets: Preset[];
  preset: Preset['ratio'];
  onZoom: (zoom: number) => void;
  onPreset: (ratio: Preset['ratio']) => void;
}) {
  return (
    <div className="crop-controls">
      <label className="field-inline">
        Zoom
        <input
          type="range"
          min={1}
          max={4}
          step={0.05}
          value={zoom}
          onChange={(event) => onZoom(Number(event.target.value))}
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
                onChange={() => onPreset(p.ratio)}
              />
              {p.label}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}

/** Cancel (or skip this image of a batch), skip the rest, the whole image, or the crop. */
function CropActions({
  saveLabel,
  inBatch,
  onCancel,
  onSkipRest,
  onWhole,
  onSave,
}: {
  saveLabel: string;
  inBatch: boolean;
  onCancel: () => void;
  onSkipRest?: () => void;
  onWhole: () => void;
  onSave?: () => void;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button" onClick={onCancel}>
        {inBatch ? 'Skip this image' : 'Cancel'}
      </button>
      {onSkipRest && (
        <button type="button" className="button" onClick={onSkipRest}>
          Skip crop for the rest
        </button>
      )}
      <button type="button" className="button" onClick={onWhole}>
        Use whole image
      </button>
      <button type="button" className="button primary" onClick={onSave} disabled={!onSave}>
        {saveLabel}
      </button>
    </div>
  );
}

/** Where the image is in a batch, and what the dialog does. */
function CropIntro({ batch }: { batch: CropDialogProps['batch'] }) {
  return (
    <>
      {batch && (
        <p className="batch-position">
          Image {batch.position} of {batch.total}
        </p>
      )}
      <p className="hint">
        Drag or use the arrow keys to move the image, and the slider to zoom. The original file is kept
        unchanged; only the frame is saved.
      </p>
    </>
  );
}
