import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { Crop } from '../../../../shared/assets/crop';

const minScale = 1;
const maxScale = 8;
const step = 1.25;
const panStep = 40;

/**
 * An image to look at closely: zoom (buttons, + and −, 0 to fit), move it (drag, or the arrow keys
 * once the picture has focus), and the saved crop outlined over it. The outline is placed in fractions
 * of the image, so it stays on the same part of the picture at any zoom.
 */
export function ImageView({ src, alt, crop }: { src: string; alt: string; crop?: Crop }) {
  const [scale, setScale] = useState(1);
  const [offset, setOffset] = useState({ x: 0, y: 0 });
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  const [showCrop, setShowCrop] = useState(true);
  const drag = useRef<{ x: number; y: number } | null>(null);

  const zoom = (factor: number) => {
    const next = Math.min(maxScale, Math.max(minScale, scale * factor));
    setScale(next);
    if (next === minScale) setOffset({ x: 0, y: 0 });
  };
  const fit = () => {
    setScale(1);
    setOffset({ x: 0, y: 0 });
  };
  const pan = (dx: number, dy: number) => setOffset((o) => ({ x: o.x + dx, y: o.y + dy }));

  function onKeyDown(event: KeyboardEvent) {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [panStep, 0],
      ArrowRight: [-panStep, 0],
      ArrowUp: [0, panStep],
      ArrowDown: [0, -panStep],
    };
    if (event.key === '+' || event.key === '=') zoom(step);
    else if (event.key === '-') zoom(1 / step);
    else if (event.key === '0') fit();
    else if (moves[event.key]) pan(...moves[event.key]!);
    else return;
    event.preventDefault();
  }

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { x: event.clientX, y: event.clientY };
  }
  function onPointerMove(event: PointerEvent) {
    if (!drag.current) return;
    pan(event.clientX - drag.current.x, event.clientY - drag.current.y);
    drag.current = { x: event.clientX, y: event.clientY };
  }

  const outline =
    crop && natural && showCrop
      ? {
          left: `${(crop.x / natural.width) * 100}%`,
          top: `${(crop.y / natural.height) * 100}%`,
          width: `${(crop.width / natural.width) * 100}%`,
          height: `${(crop.height / natural.height) * 100}%`,
        }
      : null;

  return (
    <div className="image-view">
      <div className="viewer-controls" role="toolbar" aria-label="Zoom">
        <button
          type="button"
          className="button small"
          onClick={() => zoom(1 / step)}
          disabled={scale <= minScale}
        >
          Zoom out
        </button>
        <span className="zoom-level" aria-live="polite">
          {Math.round(scale * 100)}%
        </span>
        <button
          type="button"
          className="button small"
          onClick={() => zoom(step)}
          disabled={scale >= maxScale}
        >
          Zoom in
        </button>
        <button type="button" className="button small" onClick={fit}>
          Fit
        </button>
        {crop && (
          <label className="field-inline">
            <input
              type="checkbox"
              checked={showCrop}
              onChange={(event) => setShowCrop(event.target.checked)}
            />
            Show the crop
          </label>
        )}
      </div>
      <div
        className="viewer-stage"
        tabIndex={0}
        role="group"
        aria-label="Picture: + and − zoom, arrow keys move it, 0 fits it"
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={() => (drag.current = null)}
        onPointerCancel={() => (drag.current = null)}
      >
        <div
          className="viewer-image"
          style={{
            aspectRatio: natural ? `${natural.width} / ${natural.height}` : undefined,
            transform: `translate(${offset.x}px, ${offset.y}px) scale(${scale})`,
          }}
        >
          <img
            src={src}
            alt={alt}
            draggable={false}
            onLoad={(event) =>
              setNatural({
                width: event.currentTarget.naturalWidth,
                height: event.currentTarget.naturalHeight,
              })
            }
          />
          {outline && <div className="crop-outline" style={outline} aria-hidden="true" />}
        </div>
      </div>
      {crop && showCrop && (
        <p className="hint">The outlined part is what the crop shows; the file itself is whole.</p>
      )}
    </div>
  );
}
