import { firstPageReads, loadFirstPageCode, startFirstReads } from './app/first-reads';
import { loadAppConfig } from './config/app-config';
import { FirstResponses } from './lib/platform/first-responses';
import { createPlatformHttp } from './lib/platform/http';
import { Session } from './lib/session';
import './styles.css';

/**
 * The page's first script, kept small: it starts the session and the first page's reads at once, then
 * loads the app (app/start.tsx), whose code takes longer to arrive and run on a slow phone than those
 * requests take (performance.md W4). The page the proxy painted stays until the app's first page is ready.
 */
async function start() {
  const config = await loadAppConfig();
  const session = new Session(config);
  const first = new FirstResponses();
  // A session that cannot be renewed keeps the page and asks the person to sign in again (layout.tsx).
  const http = createPlatformHttp(config, session, () => session.markEnded());
  await startFirstReads(firstPageReads(window.location, config), { session, http, first });
  loadFirstPageCode(window.location);
  const { startApp } = await import('./app/start');
  await startApp({ config, session, http, first });
}

start().catch(async (error: unknown) => {
  const { showStartupFailure } = await import('./app/start');
  showStartupFailure(error);
});
