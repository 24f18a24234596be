/**
 * Zoom out and Zoom in by one step each, with the zoom between them in per cent (announced as it
 * changes): the same three controls for pictures and PDF pages. `onZoom` gets the scale asked for;
 * each button is off at its end of the range.
 */
export function ZoomSteps({
  scale,
  step,
  min,
  max,
  onZoom,
}: {
  scale: number;
  step: number;
  min: number;
  max: number;
  onZoom: (scale: number) => void;
}) {
  return (
    <>
      <button
        type="button"
        className="button small"
        onClick={() => onZoom(scale / step)}
        disabled={scale <= min}
      >
        Zoom out
      </button>
      <span className="zoom-level" aria-live="polite">
        <span className="visually-hidden">Zoom </span>
        {Math.round(scale * 100)} %
      </span>
      <button
        type="button"
        className="button small"
        onClick={() => onZoom(scale * step)}
        disabled={scale >= max}
      >
        Zoom in
      </button>
    </>
  );
}
