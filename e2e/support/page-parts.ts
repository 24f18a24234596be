import { expect, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';

/** An upload slot of an entity page, by its file type's label. */
export const slot = (page: Page, label: string) => page.getByRole('region', { name: label, exact: true });

/** A file's card in a slot, by (part of) its name. */
export const card = (scope: Locator, name: string) =>
  scope.getByRole('list', { name: 'Files', exact: true }).getByRole('listitem').filter({ hasText: name });

/**
 * The button that opens a slot's file chooser: "Choose a file for Logo", or "Replace logo" in a slot
 * that holds one file and has it (an earlier journey on the shared platform may have left one).
 */
export const chooserName = (label: string) =>
  new RegExp(`^(Choose a file for ${label}|Replace ${label.toLowerCase()})$`);

/** The crop dialog's save button: "Crop and replace" where the upload replaces the slot's one file. */
export const cropAndSend = /^Crop and (upload|replace)$/;

type Pixel = { r: number; g: number; b: number; width: number; height: number };

function pixelAt(
  data: Buffer,
  info: { width: number; height: number; channels: number },
  x: number,
  y: number,
): Pixel {
  const at = (Math.floor(y * info.height) * info.width + Math.floor(x * info.width)) * info.channels;
  return { r: data[at]!, g: data[at + 1]!, b: data[at + 2]!, width: info.width, height: info.height };
}

/** The colour at a point of an image the page shows, read from the bytes the browser received. */
export async function pixelOf(page: Page, image: Locator, x: number, y: number): Promise<Pixel> {
  const src = await image.getAttribute('src');
  const bytes = Buffer.from(await (await page.request.get(src!)).body());
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return pixelAt(data, info, x, y);
}

/** The colour at a point of an element as the screen shows it (for crops the browser draws itself). */
export async function shownPixelOf(element: Locator, x: number, y: number): Promise<Pixel> {
  const { data, info } = await sharp(await element.screenshot())
    .raw()
    .toBuffer({ resolveWithObject: true });
  return pixelAt(data, info, x, y);
}

/** Which quadrant colour of quadrantsPng() a pixel is. */
export function colourOf({ r, g, b }: { r: number; g: number; b: number }) {
  if (r > 180 && g > 160 && b < 110) return 'yellow';
  if (r > 180 && g < 100) return 'red';
  if (g > 150 && r < 100) return 'green';
  if (b > 170 && r < 100) return 'blue';
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * Drops files on an element as a person dragging them from the desktop would: the browser's own
 * drag events, carrying a DataTransfer made in the page with the files' bytes.
 */
export async function dropFiles(
  target: Locator,
  files: { name: string; mimeType: string; buffer: Buffer }[],
) {
  const dataTransfer = await target.page().evaluateHandle(
    (sent) => {
      const transfer = new DataTransfer();
      for (const file of sent)
        transfer.items.add(new File([new Uint8Array(file.bytes)], file.name, { type: file.mimeType }));
      return transfer;
    },
    files.map((file) => ({ name: file.name, mimeType: file.mimeType, bytes: [...file.buffer] })),
  );
  for (const type of ['dragenter', 'dragover', 'drop']) await target.dispatchEvent(type, { dataTransfer });
}

/**
 * The page has finished drawing what it shows: nothing marked busy or spinning, and every picture on
 * the screen loaded (one loaded lazily further down waits for the person to scroll to it). What a
 * person would wait for before looking, instead of the network falling silent.
 */
export async function settled(page: Page) {
  await expect(page.locator('[aria-busy="true"], .spinner')).toHaveCount(0);
  await page.waitForFunction(
    () =>
      Array.from(document.images).every((image) => {
        if (image.complete || image.loading !== 'lazy') return image.complete;
        // A lazy picture loads once it is drawn near the screen: one not drawn (inside something
        // hidden) or far from it is not there for the person to see yet.
        const box = image.getBoundingClientRect();
        const drawn = image.getClientRects().length > 0 && box.width > 0 && box.height > 0;
        return !drawn || box.top > window.innerHeight || box.bottom < 0;
      }),
    undefined,
    { timeout: 20_000 },
  );
}

/** The browser's uploads at this many bytes a second (Chromium's own throttling); -1: unthrottled. */
export async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}
