import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web app. `npm run build` writes dist/, which the proxy serves. Under `npm run dev` Vite serves the
 * app and forwards the proxy's own endpoints to it (DEV_PROXY_URL), so sign-in works the same way.
 */
const devProxy = process.env.DEV_PROXY_URL ?? 'http://127.0.0.1:5174';

export default defineConfig({
  plugins: [react()],
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
