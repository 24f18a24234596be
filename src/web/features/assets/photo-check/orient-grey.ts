import type { GreyImage } from '../../../../shared/assets/photo-quality';

/**
 * A grey image turned upright the way a WebCodecs `VideoFrame` says it is shown: turned `rotation`
 * degrees clockwise, then mirrored left to right when `flip` (the order the WebCodecs platform tests
 * draw such frames in). The browser's JPEG decoder reports a photo's EXIF orientation this way and
 * leaves the pixels as stored; the platform's sharp turns them itself, so both measure the same
 * upright picture.
 */
export function orientGrey(image: GreyImage, rotation: number, flip: boolean): GreyImage {
  const turns = (((rotation / 90) % 4) + 4) % 4;
  if (turns === 0 && !flip) return image;
  const { data, width, height } = image;
  const sideways = turns % 2 === 1;
  const outW = sideways ? height : width;
  const outH = sideways ? width : height;
  // Where source pixel (x, y) lands: after the clockwise turns, then after the mirror.
  const landing = (x: number, y: number) => {
    let u = x;
    let v = y;
    if (turns === 1) [u, v] = [height - 1 - y, x];
    else if (turns === 2) [u, v] = [width - 1 - x, height - 1 - y];
    else if (turns === 3) [u, v] = [y, width - 1 - x];
    if (flip) u = outW - 1 - u;
    return v * outW + u;
  };
  // Turns and mirrors are linear, so the landing index steps by fixed amounts along x and along y.
  const start = landing(0, 0);
  const stepX = landing(1, 0) - start;
  const stepY = landing(0, 1) - start;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const target = start + y * stepY;
    for (let x = 0; x < width; x++) out[target + x * stepX] = data[row + x]!;
  }
  return { data: out, width: outW, height: outH };
}
