import { describe, expect, it } from 'vitest';
import { orientGrey } from './orient-grey';

/** Rows of letters as a grey image, one letter a pixel; and back. */
const image = (rows: string[]) => ({
  data: Uint8Array.from(rows.join(''), (c) => c.charCodeAt(0)),
  width: rows[0]!.length,
  height: rows.length,
});
const rowsOf = ({ data, width }: { data: Uint8Array; width: number }) =>
  Array.from({ length: data.length / width }, (_, y) =>
    String.fromCharCode(...data.subarray(y * width, (y + 1) * width)),
  );

// The frame of the WebCodecs platform tests (videoFrame-orientation): yellow, red over blue, green.
const frame = image(['yyrr', 'bbgg']);

describe('orientGrey', () => {
  it('leaves an upright frame as it is', () => {
    expect(orientGrey(frame, 0, false)).toBe(frame);
  });

  it('turns clockwise by the rotation', () => {
    expect(rowsOf(orientGrey(frame, 90, false))).toEqual(['by', 'by', 'gr', 'gr']);
    expect(rowsOf(orientGrey(frame, 180, false))).toEqual(['ggbb', 'rryy']);
    expect(rowsOf(orientGrey(frame, 270, false))).toEqual(['rg', 'rg', 'yb', 'yb']);
  });

  it('mirrors after turning, as a browser draws such a frame', () => {
    // What the platform tests expect on screen for rotation 90 with flip.
    expect(rowsOf(orientGrey(frame, 90, true))).toEqual(['yb', 'yb', 'rg', 'rg']);
    expect(rowsOf(orientGrey(frame, 0, true))).toEqual(['rryy', 'ggbb']);
    expect(rowsOf(orientGrey(frame, 180, true))).toEqual(['bbgg', 'yyrr']);
    expect(rowsOf(orientGrey(frame, 270, true))).toEqual(['gr', 'gr', 'by', 'by']);
  });
});
