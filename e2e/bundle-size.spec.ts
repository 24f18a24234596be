import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, signIn, test } from './support/app';
import { webUrl } from './support/urls';

/** performance.md W1 and W2: what the first page costs, measured on what the browser really loads. */
const maxFirstPageGzipBytes = 150 * 1024;
const onDemandOnly = ['react-dropzone', 'react-easy-crop', 'pdfjs-dist'];

/** The packages a built chunk contains, from its source map. */
function packagesOf(chunkUrl: string): Set<string> {
  const file = `dist${new URL(chunkUrl).pathname}.map`;
  const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] };
  return new Set(map.sources.map((s) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s)?.[1] ?? '(app)'));
}

test('the first page loads at most 150 KB of JavaScript (gzip), with no cropper, dropzone or PDF code', async ({
  page,
}) => {
  const scripts = new Map<string, number>();
  page.on('response', async (response) => {
    const url = response.url();
    if (url.startsWith(webUrl) && url.endsWith('.js'))
      scripts.set(url, gzipSync(await response.body()).length);
  });
  await signIn(page, 'issuer@demo.test');
  await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
  await page.waitForLoadState('networkidle');

  const total = [...scripts.values()].reduce((sum, bytes) => sum + bytes, 0);
  console.log(`first page JavaScript: ${(total / 1024).toFixed(1)} KB gzip in ${scripts.size} file(s)`);
  expect(total).toBeLessThanOrEqual(maxFirstPageGzipBytes);
  for (const url of scripts.keys()) {
    const packages = packagesOf(url);
    for (const name of onDemandOnly) expect(packages.has(name), `${name} in ${url}`).toBe(false);
  }

  // They do arrive when needed: an entity page with an upload slot loads the dropzone.
  await page.getByRole('link', { name: 'Solar Farm Fund I', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Choose a file for Logo' })).toBeVisible();
  const later = [...scripts.keys()].flatMap((url) => [...packagesOf(url)]);
  expect(later).toContain('react-dropzone');
});
