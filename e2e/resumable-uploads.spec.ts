import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, storedAccessToken, test } from './support/app';
import { largePdf } from './support/files';
import { card, slot, throttleUploads } from './support/page-parts';
import { platformUrl } from './support/urls';

/**
 * Issue 32 end to end, on our platform (tus at /v2/core/uploads) behind the shared proxy: a large file
 * is paused and resumed from the keyboard and survives a reload (the same file chosen again continues
 * from the last byte the platform holds), and the stored file is the file, byte for byte. A dropped
 * connection is cut for real (a TCP fault proxy) in src/platform/assets/resumable/resumable-uploads.test.ts:
 * Chromium's offline emulation does not cut a request already sending, so it cannot stand in here.
 *
 * The files are written to disk and chosen by path, as a person chooses them: the browser then gives
 * them their real modification time, which is part of what makes "the same file" after a reload.
 */
const folder = '.tmp/e2e-resumable';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function fileOnDisk(name: string, megabytes: number) {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  writeFileSync(path, (await largePdf(name, megabytes, name)).buffer);
  return path;
}

/** The offsets of the PATCHes the page sends: where each continued from. */
function watchPatches(page: Page) {
  const offsets: number[] = [];
  page.on('request', (request) => {
    if (request.method() === 'PATCH' && new URL(request.url()).pathname.startsWith('/v2/core/uploads/'))
      offsets.push(Number(request.headers()['upload-offset']));
  });
  return offsets;
}

/** The percentage a row says it has sent ("Sending 42%", "Paused at 42%"). */
async function percentOf(row: Locator): Promise<number> {
  const words = (await row.locator('.upload-phase').textContent()) ?? '';
  return Number(/(\d+)%/.exec(words)?.[1] ?? 0);
}

/** The stored original's bytes, through the platform's signed download URL. */
async function storedBytes(page: Page, fileCard: Locator): Promise<Buffer> {
  const id = Number((await fileCard.getAttribute('id'))!.replace('file-', ''));
  const token = await storedAccessToken(page);
  const address = await page.request.get(`${platformUrl}/v2/core/assets/${id}/download_url`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { url } = (await address.json()) as { url: string };
  return (await page.request.get(url)).body();
}

test('a large upload pauses and resumes from the keyboard, survives a reload, and the stored file is the file', async ({
  page,
  login,
}) => {
  test.setTimeout(180_000);
  const path = await fileOnDisk('charter-large.pdf', 8);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const charters = slot(page, 'Charter document');
  await expect(charters).toBeVisible();
  const patches = watchPatches(page);

  await throttleUploads(page, 1024 * 1024);
  await charters.getByTestId('input-charter_document').setInputFiles(path);
  const row = charters.getByRole('list', { name: 'Uploads' }).getByRole('listitem');
  await expect.poll(() => percentOf(row), { timeout: 60_000 }).toBeGreaterThanOrEqual(10);

  const pause = charters.getByRole('button', { name: 'Pause charter-large.pdf' });
  await pause.focus();
  await page.keyboard.press('Enter');
  const resume = charters.getByRole('button', { name: 'Resume charter-large.pdf' });
  await expect(resume).toBeFocused();
  await expect(row.getByText(/^Paused at \d+%$/)).toBeVisible();
  const pausedAt = await percentOf(row);
  expect(pausedAt).toBeGreaterThanOrEqual(10);

  await page.keyboard.press('Enter');
  // It continues where the platform is, not at byte 0.
  await expect.poll(() => patches.length).toBeGreaterThanOrEqual(2);
  expect(patches.at(-1)).toBeGreaterThan(0);
  await expect.poll(() => percentOf(row), { timeout: 60_000 }).toBeGreaterThan(pausedAt + 5);

  // A reload mid-upload: the slot offers to continue, and the same file chosen again does.
  await page.reload();
  await expect(charters.getByText('1 upload can continue — choose the same file to resume.')).toBeVisible();
  await expect(charters.getByText(/MB of 8\.\d MB sent$/)).toBeVisible();
  await throttleUploads(page, -1);
  const beforeReload = patches.length;
  await charters.getByTestId('input-charter_document').setInputFiles(path);
  const stored = card(charters, 'charter-large.pdf');
  await expect(stored).toBeVisible({ timeout: 60_000 });
  expect(patches.slice(beforeReload)[0]).toBeGreaterThan(0);
  await expect(charters.getByText(/can continue/)).toHaveCount(0);

  expect(sha256(await storedBytes(page, stored))).toBe(sha256(readFileSync(path)));
});
