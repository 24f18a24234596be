/**
 * Where the end-to-end programs listen: test ports, so a running `npm start` does not get in the way.
 * `E2E_PORT_OFFSET` moves them all, so two checkouts can run their suites side by side.
 */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0);
export const e2ePorts = { platform: 4100 + offset, web: 4173 + offset };
export const platformUrl = `http://127.0.0.1:${e2ePorts.platform}`;
export const webUrl = `http://127.0.0.1:${e2ePorts.web}`;
/** A fresh data directory per run, seeded with the demo data. */
export const platformDataDir = '.tmp/e2e-platform';
/** The proxy's log output, which P1 searches for the client secret. */
export const proxyLogFile = '.tmp/e2e-proxy.log';
/** Short enough that a test sees the app renew it; long enough for a page to load on a slow machine. */
export const accessTokenTtlSeconds = 20;
