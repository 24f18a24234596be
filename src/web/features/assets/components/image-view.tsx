import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { StoredFile } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { addressQuery, previewAddressQuery } from '../api/asset-queries';
import { previewWidth } from './preview-width';
import { typing, useFocusOnArrival, useStageSize, type Size } from './viewer-stage';
import { ZoomSteps } from './zoom-steps';

const step = 1.25;
const maxScale = 8;
const panStep = 60;
/**
 * Widths the viewer asks renditions in, so that zooming asks for few: the platform's own (it rounds
 * up to these), so that a phone's picture is the 800 one and not a width above it.
 */
const renditionLadder = [320, 640, 800, 1280, 1920];
/** Before the stage is measured (and where nothing measures, as in tests): a laptop's dialog. */
const assumedStage: Size = { width: 1024, height: 640 };
const canMeasure = typeof ResizeObserver !== 'undefined';

type Zoom = 'fit' | number;
interface Offset {
  x: number;
  y: number;
}

/** The picture's size on screen at `scale`, turned a quarter or not. */
function shownSize(natural: Size, scale: number, rotation: number): Size {
  const turned = rotation % 180 !== 0;
  return {
    width: (turned ? natural.height : natural.width) * scale,
    height: (turned ? natural.width : natural.height) * scale,
  };
}

/** The scale at which the whole (turned) picture fits the stage. */
export function fitScale(natural: Size, stage: Size, rotation: number): number {
  const turned = shownSize(natural, 1, rotation);
  return Math.min(stage.width / turned.width, stage.height / turned.height);
}

/** An offset kept so that a picture larger than the stage cannot leave a gap at an edge. */
function clampOffset(offset: Offset, shown: Size, stage: Size): Offset {
  const maxX = Math.max(0, (shown.width - stage.width) / 2);
  const maxY = Math.max(0, (shown.height - stage.height) / 2);
  return {
    x: Math.min(maxX, Math.max(-maxX, offset.x)),
    y: Math.min(maxY, Math.max(-maxY, offset.y)),
  };
}

/**
 * The width of rendition to ask for: enough image pixels for the picture's width on screen at the
 * device's pixel ratio, rounded up a rung of the ladder, and never more than twice the stage's CSS
 * width in device pixels (past that the original is shown instead, beyond 100 %).
 */
export function renditionWidth(natural: Size, scale: number, stage: Size, pixelRatio: number) {
  const wanted = Math.ceil(natural.width * Math.min(scale, 1) * pixelRatio);
  const cap = Math.ceil(2 * stage.width * pixelRatio);
  const rung = renditionLadder.find((width) => width >= wanted) ?? renditionLadder.at(-1)!;
  return Math.max(1, Math.min(rung, cap));
}

/**
 * An image to look at closely. It opens fitted: the whole picture inside the stage at any window
 * size. Zoom in steps, "100 %" is the file's own pixels (one to a CSS pixel), Fit fits again; drag or
 * the arrow keys move a picture larger than the stage; Rotate turns it a quarter (the view only, the
 * file is unchanged). + − 0 and the arrows work as soon as it opens: the picture has focus. What is
 * shown is a rendition sized to the screen where the platform makes them, and the original past 100 %;
 * the card's small preview stands in while it loads. The crop is outlined in fractions of the image,
 * so it stays on the same part of the picture at any zoom and turn.
 */
export function ImageView({ file, original }: { file: StoredFile; original?: string }) {
  const stageRef = useRef<HTMLDivElement>(null);
  const measured = useStageSize(stageRef);
  const stage = measured ?? assumedStage;
  const [loaded, setLoaded] = useState<Size | null>(null);
  const natural: Size | null =
    file.width && file.height ? { width: file.width, height: file.height } : loaded;
  const [showCrop, setShowCrop] = useState(true);
  useFocusOnArrival(stageRef);

  const view = usePanZoom(natural, stage);
  const { zoom, scale, minScale, rotation, offset, shown, zoomTo, fitAgain, rotate, pan } = view;
  // Arrows move the picture only from the picture itself (on a button they are the button's).
  const onKeyDown = (event: KeyboardEvent) => keyDown(event, view, event.target === stageRef.current);
  const { main, standIn, sharp } = useImageSources({ file, original, natural, scale, stage, measured });

  const dragging = useDrag(pan);

  const crop = file.crop;
  const outline = crop && natural && showCrop ? cropOutline(crop, natural) : null;
  const box = natural && shown ? pictureBox(natural, scale, stage, offset, rotation) : hiddenBox;

  return (
    // The keys work wherever focus is in the view (the picture, or a button just pressed).
    <div className="image-view" onKeyDown={onKeyDown}>
      <ZoomToolbar
        scale={scale}
        fitted={zoom === 'fit'}
        minScale={minScale}
        onZoom={zoomTo}
        onFit={fitAgain}
        onRotate={rotate}
        crop={crop ? { shown: showCrop, show: setShowCrop } : undefined}
      />
      <div
        ref={stageRef}
        className="viewer-stage"
        tabIndex={0}
        role="group"
        aria-label="Picture: + and − zoom, 0 fits, arrow keys move it, R turns it"
        data-autofocus=""
        {...dragging}
      >
        <div className="viewer-image" style={box} data-rotation={rotation}>
          {standIn && <img src={standIn} alt="" draggable={false} />}
          {main && (
            <img
              src={main}
              alt={file.name}
              draggable={false}
              onLoad={(event) =>
                setLoaded({
                  width: event.currentTarget.naturalWidth,
                  height: event.currentTarget.naturalHeight,
                })
              }
            />
          )}
          {sharp && <img src={sharp} alt="" draggable={false} />}
          {outline && <div className="crop-outline" style={outline} aria-hidden="true" />}
        </div>
      </div>
      {crop && showCrop && (
        <p className="hint">The outlined part is what the crop shows; the file itself is whole.</p>
      )}
    </div>
  );
}

/** The crop's outline, in fractions of the image: on the same part of it at any zoom and turn. */
function cropOutline(crop: NonNullable<StoredFile['crop']>, natural: Size) {
  return {
    left: `${(crop.x / natural.width) * 100}%`,
    top: `${(crop.y / natural.height) * 100}%`,
    width: `${(crop.width / natural.width) * 100}%`,
    height: `${(crop.height / natural.height) * 100}%`,
  };
}

/** Unturned, the box is the picture at this scale, centred in the stage and moved by the offset. */
function pictureBox(natural: Size, scale: number, stage: Size, offset: Offset, rotation: number) {
  return {
    width: natural.width * scale,
    height: natural.height * scale,
    left: (stage.width - natural.width * scale) / 2 + offset.x,
    top: (stage.height - natural.height * scale) / 2 + offset.y,
    transform: rotation ? `rotate(${rotation}deg)` : undefined,
  };
}

/** Size unknown until the picture arrives (a platform that does not say it): loaded unseen. */
const hiddenBox = { width: 1, height: 1, opacity: 0 };

/**
 * The pictures to draw, back to front: the card's preview standing in while the rendition loads, the
 * rendition sized to the screen (or the original, where the platform makes no renditions), and past
 * 100 % the original's own pixels.
 */
function useImageSources({
  file,
  original,
  natural,
  scale,
  stage,
  measured,
}: {
  file: StoredFile;
  original?: string;
  natural: Size | null;
  scale: number;
  stage: Size;
  measured: Size | null;
}) {
  const { platform } = useServices();
  const [wantOriginal, setWantOriginal] = useState(false);
  const [widest, setWidest] = useState(0);
  // The rendition grows with the zoom and never shrinks back (a smaller one would only be blurrier).
  const pixelRatio = typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1;
  const wanted = renditionWidth(natural ?? stage, scale, stage, pixelRatio);
  // Kept while rendering (React's way for state that follows other state), not in an effect.
  // Only once the stage is measured: a guess at its size would ask for a picture of the wrong width
  // (where nothing can measure it, as in tests, the guess is all there is).
  if ((measured || !canMeasure) && wanted > widest) setWidest(wanted);
  if (scale > 1 && !wantOriginal) setWantOriginal(true);
  // The card's preview (whole image, in the browser's cache already): at once, while the rest loads.
  const cardPreview = useQuery({
    ...previewAddressQuery(platform, file, 'preview', previewWidth),
    enabled: !file.crop,
  });
  const card = !file.crop && cardPreview.data && 'url' in cardPreview.data ? cardPreview.data : undefined;
  // A platform without renditions gave the card the original: that is the picture, asked for once.
  const cardIsOriginal = card !== undefined && !card.rendered;
  const rendition = useQuery({
    ...addressQuery(platform, file, 'preview', widest || wanted),
    enabled: widest > 0 && !cardIsOriginal,
  });
  const main = cardIsOriginal ? card.url : rendition.data?.url;
  const standIn = cardIsOriginal ? undefined : card?.url;
  // Past 100 % the original's own pixels, over the rendition once they have loaded.
  const sharp = wantOriginal && !cardIsOriginal && rendition.data?.rendered === true ? original : undefined;
  return { main, standIn, sharp };
}

/** Zoom out and in, 100 %, Fit, Rotate, and whether the crop is outlined (for a cropped image). */
function ZoomToolbar({
  scale,
  fitted,
  minScale,
  onZoom,
  onFit,
  onRotate,
  crop,
}: {
  scale: number;
  fitted: boolean;
  minScale: number;
  onZoom: (scale: number) => void;
  onFit: () => void;
  onRotate: () => void;
  crop?: { shown: boolean; show: (shown: boolean) => void };
}) {
  return (
    <div className="viewer-controls" role="toolbar" aria-label="Zoom and turn">
      <ZoomSteps scale={scale} step={step} min={minScale} max={maxScale} onZoom={onZoom} />
      <button
        type="button"
        className="button small"
        onClick={() => onZoom(1)}
        aria-pressed={scale === 1}
        aria-label="100 %: the file's own pixels"
      >
        100 %
      </button>
      <button type="button" className="button small" onClick={onFit} aria-pressed={fitted}>
        Fit
      </button>
      <button type="button" className="button small" onClick={onRotate}>
        Rotate<span className="visually-hidden"> a quarter turn to the right (the view only)</span>
      </button>
      {crop && (
        <label className="field-inline">
          <input type="checkbox" checked={crop.shown} onChange={(event) => crop.show(event.target.checked)} />
          Show the crop
        </label>
      )}
    </div>
  );
}

/**
 * The zoom ('fit' until the person zooms), the quarter turns and the offset of a picture moved around
 * the stage, with what changes them: the offset is kept so that no gap opens at an edge.
 */
function usePanZoom(natural: Size | null, stage: Size) {
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [rotation, setRotation] = useState(0);
  const [offset, setOffset] = useState<Offset>({ x: 0, y: 0 });

  const fit = natural ? fitScale(natural, stage, rotation) : 1;
  const scale = zoom === 'fit' ? fit : zoom;
  const minScale = Math.min(fit, 1) / 2;
  const shown = natural ? shownSize(natural, scale, rotation) : null;

  const zoomTo = (next: number) => {
    const bounded = Math.min(maxScale, Math.max(minScale, next));
    setZoom(bounded);
    if (natural) {
      const ratio = bounded / scale;
      setOffset((o) =>
        clampOffset({ x: o.x * ratio, y: o.y * ratio }, shownSize(natural, bounded, rotation), stage),
      );
    }
  };
  const fitAgain = () => {
    setZoom('fit');
    setOffset({ x: 0, y: 0 });
  };
  const rotate = () => {
    setRotation((r) => (r + 90) % 360);
    setZoom('fit');
    setOffset({ x: 0, y: 0 });
  };
  const canPan = (dx: number, dy: number) =>
    shown !== null && ((dx !== 0 && shown.width > stage.width) || (dy !== 0 && shown.height > stage.height));
  const pan = (dx: number, dy: number) => {
    if (shown) setOffset((o) => clampOffset({ x: o.x + dx, y: o.y + dy }, shown, stage));
  };

  return { zoom, scale, minScale, rotation, offset, shown, zoomTo, fitAgain, rotate, canPan, pan };
}

/** Dragging the picture with a pointer moves it as far as the pointer moved. */
function useDrag(pan: (dx: number, dy: number) => void) {
  const drag = useRef<{ x: number; y: number } | null>(null);
  return {
    onPointerDown(event: PointerEvent<HTMLDivElement>) {
      event.currentTarget.setPointerCapture(event.pointerId);
      drag.current = { x: event.clientX, y: event.clientY };
    },
    onPointerMove(event: PointerEvent) {
      if (!drag.current) return;
      pan(event.clientX - drag.current.x, event.clientY - drag.current.y);
      drag.current = { x: event.clientX, y: event.clientY };
    },
    onPointerUp: () => (drag.current = null),
    onPointerCancel: () => (drag.current = null),
  };
}

/** The view's keys: + − 0 1 zoom, R turns, the arrows move a picture larger than the stage. */
function keyDown(event: KeyboardEvent, view: ReturnType<typeof usePanZoom>, onPicture: boolean) {
  const { scale, zoomTo, fitAgain, rotate, canPan, pan } = view;
  const moves: Record<string, [number, number]> = {
    ArrowLeft: [panStep, 0],
    ArrowRight: [-panStep, 0],
    ArrowUp: [0, panStep],
    ArrowDown: [0, -panStep],
  };
  const move = moves[event.key];
  if (typing(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === '+' || event.key === '=') zoomTo(scale * step);
  else if (event.key === '-' || event.key === '_') zoomTo(scale / step);
  else if (event.key === '0') fitAgain();
  else if (event.key === '1') zoomTo(1);
  else if (event.key === 'r' || event.key === 'R') rotate();
  // An arrow with nothing to move in its direction is left to the viewer: ← → go to the next file.
  else if (move && onPicture && canPan(...move)) pan(...move);
  else return;
  event.preventDefault();
}
