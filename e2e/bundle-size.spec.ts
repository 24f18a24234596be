import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { expect, test } from './support/app';
import { chooserName, settled } from './support/page-parts';
import { webUrl } from './support/urls';

/** performance.md W1 and W2: what the first page costs, measured on what the browser really loads. */
const maxFirstPageGzipBytes = 150 * 1024;
/** …and at most this many times the JavaScript of a bare React 19 app built in the same run. */
const maxTimesBareReact = 2.3;
const onDemandOnly = ['react-dropzone', 'react-easy-crop', 'pdfjs-dist'];

/**
 * The packages a built chunk contains, from its source map. Only the bundler's own runtime (its module
 * helpers, shared by the chunks) comes without one: it holds no package.
 */
function packagesOf(chunkUrl: string): Set<string> {
  const file = `dist${new URL(chunkUrl).pathname}.map`;
  if (!existsSync(file) && /^rolldown-runtime-[\w-]+\.js$/.test(basename(file, '.map'))) return new Set();
  const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] };
  return new Set(map.sources.map((s) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s)?.[1] ?? '(app)'));
}

/** The gzip size of the JavaScript of a one-component React 19 app, built by the same Vite as ours. */
async function bareReactGzipBytes(): Promise<number> {
  // Inside the project, so that `react` resolves from its node_modules.
  const root = '.tmp/bare-react';
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><div id="root"></div><script type="module" src="./main.jsx"></script>',
  );
  writeFileSync(
    join(root, 'main.jsx'),
    "import { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')).render(<h1>Hello</h1>);\n",
  );
  await build({
    root,
    configFile: false,
    logLevel: 'silent',
    plugins: [react()],
    build: { outDir: 'dist', emptyOutDir: true },
  });
  const assets = join(root, 'dist', 'assets');
  return readdirSync(assets)
    .filter((file) => file.endsWith('.js'))
    .reduce((sum, file) => sum + gzipSync(readFileSync(join(assets, file))).length, 0);
}

test('the first page loads at most 150 KB of JavaScript (gzip), 2.3× bare React at most, with no cropper, dropzone or PDF code', async ({
  page,
  login,
}) => {
  const issuer = await login({ role: 'issuer' });
  const scripts = new Map<string, number>();
  const encodings = new Set<string | undefined>();
  page.on('response', async (response) => {
    const url = response.url();
    if (url.startsWith(webUrl) && url.endsWith('.js')) {
      encodings.add(response.headers()['content-encoding']);
      scripts.set(url, gzipSync(await response.body()).length);
    }
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: `Hello, ${issuer.name}` })).toBeVisible();
  // Every script the page has loaded (the browser's own record of them) has reached the listener,
  // which records one once its whole body has arrived.
  await settled(page);
  await expect
    .poll(async () => {
      const loaded = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => entry.name),
      );
      return loaded
        .filter((url) => url.startsWith(webUrl) && url.endsWith('.js'))
        .every((url) => scripts.has(url));
    })
    .toBe(true);

  const total = [...scripts.values()].reduce((sum, bytes) => sum + bytes, 0);
  const bare = await bareReactGzipBytes();
  console.log(
    `first page JavaScript: ${(total / 1024).toFixed(1)} KB gzip in ${scripts.size} file(s), ` +
      `${(total / bare).toFixed(2)}× a bare React 19 app (${(bare / 1024).toFixed(1)} KB)`,
  );
  expect(total).toBeLessThanOrEqual(maxFirstPageGzipBytes);
  // And it travels compressed: the build's Brotli copies, which Chromium accepts.
  expect([...encodings]).toEqual(['br']);
  expect(total / bare).toBeLessThanOrEqual(maxTimesBareReact);
  for (const url of scripts.keys()) {
    const packages = packagesOf(url);
    for (const name of onDemandOnly) expect(packages.has(name), `${name} in ${url}`).toBe(false);
  }

  // They do arrive when needed: an entity page with an upload slot loads the dropzone.
  await page.getByRole('link', { name: issuer.product.name, exact: true }).click();
  await expect(page.getByRole('button', { name: chooserName('Logo') })).toBeVisible();
  // (Polled: the listener records a script once its body has arrived, which may be after the button.)
  await expect
    .poll(() => [...scripts.keys()].flatMap((url) => [...packagesOf(url)]))
    .toContain('react-dropzone');
  // No page of the app validates with zod (the platform does): on the entity pages, where people
  // work most, zod alone would outweigh the page's own code. Saved crops are read with a plain
  // check (shared/assets/crop.ts).
  for (const chunk of readdirSync('dist/assets').filter((file) => file.endsWith('.js')))
    expect(packagesOf(`${webUrl}/assets/${chunk}`).has('zod'), chunk).toBe(false);
});
