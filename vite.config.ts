import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The web app. `npm run build` writes dist/, which the proxy serves. Under `npm run dev` Vite serves the
 * app and forwards the proxy's own endpoints to it (DEV_PROXY_URL), so sign-in works the same way.
 */
const devProxy = process.env.DEV_PROXY_URL ?? 'http://127.0.0.1:5174';

/**
 * Writes `.br` and `.gz` beside every page, script and style of the build, compressed once at the
 * highest levels, for the proxy to send to browsers that accept them (@fastify/static's
 * `preCompressed`). Uncompressed, the first page's JavaScript is 3.3 times as many bytes on the wire.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const compress = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) compress(path);
      else if (/\.(html|js|mjs|css|svg|json)$/.test(entry.name)) {
        const bytes = readFileSync(path);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    }
  };
  return {
    name: 'precompress',
    apply: 'build',
    configResolved: (config) => void (outDir = resolve(config.root, config.build.outDir)),
    closeBundle: () => compress(outDir),
  };
}

/**
 * main.tsx loads the app (src/web/app/start.tsx) with `import()` after starting the session, so that
 * those requests do not wait for the app's code (performance.md W4). The page names the app's chunks
 * too, so the browser fetches them beside main.tsx's own rather than only once it has run.
 */
function preloadApp(): Plugin {
  const appModule = resolve('src/web/app/start.tsx');
  return {
    name: 'preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, { bundle }) => {
        const chunks = Object.values(bundle ?? {}).filter((output) => output.type === 'chunk');
        const app = chunks.find((chunk) => chunk.facadeModuleId === appModule);
        if (!app) throw new Error('The app chunk (src/web/app/start.tsx) is missing from the build.');
        const entry = chunks.find((chunk) => chunk.isEntry);
        const files = new Set<string>();
        const add = (fileName: string) => {
          if (files.has(fileName) || fileName === entry?.fileName) return;
          files.add(fileName);
          for (const imported of chunks.find((chunk) => chunk.fileName === fileName)?.imports ?? [])
            add(imported);
        };
        add(app.fileName);
        return [...files].map((fileName) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/${fileName}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress(), preloadApp()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or data-URL modules: the proxy's CSP allows scripts from 'self' only (P11).
    assetsInlineLimit: 0,
  },
  server: {
    host: '127.0.0.1',
    port: Number(process.env.WEB_PORT ?? 5173),
    strictPort: true,
    proxy: {
      '/oauth': { target: devProxy },
      '/app-config.json': { target: devProxy },
    },
  },
});
