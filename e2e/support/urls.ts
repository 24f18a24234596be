/** Where the end-to-end programs listen: test ports, so a running `npm start` does not get in the way. */
export const e2ePorts = { platform: 4100, web: 4173 };
export const platformUrl = `http://127.0.0.1:${e2ePorts.platform}`;
export const webUrl = `http://127.0.0.1:${e2ePorts.web}`;
/** A fresh data directory per run, seeded with the demo data. */
export const platformDataDir = '.tmp/e2e-platform';
/** The proxy's log output, which P1 searches for the client secret. */
export const proxyLogFile = '.tmp/e2e-proxy.log';
/** Short enough that a test sees the app renew it; long enough for a page to load on a slow machine. */
export const accessTokenTtlSeconds = 20;
