import type { AppConfig } from '../shared/api/app-config';
import { proxyPaths } from './oauth-routes';

/**
 * The app's page as the proxy serves it: the built index.html, with what only the proxy knows filled
 * in, so that the first paint waits for no JavaScript and the app for no round trip of its own
 * (performance.md W4). The slots are index.html's own; a page without them (an older build) is
 * served as it is, and the app then fetches its settings and paints its shell itself.
 */

/** What the static shell shows before the app takes over. */
export interface ShellChoice {
  /**
   * The landing (what the app is, and "Sign in") only at / for a browser without a session: a signed-in
   * person, or anyone on a deeper page, sees the header and a loading status, as the app shows them
   * until its page is ready, never a flash of the sign-in page.
   */
  shell: 'landing' | 'loading';
  /** "Sign in" was pressed before the app had loaded (index.html's form): the button shows it is on its way. */
  signInPending: boolean;
  /** The browser holds a session: the header keeps room for the user menu, so it does not jump when it appears. */
  signedIn: boolean;
}

const configSlot = '<script type="application/json" id="app-config"></script>';
const userMenuSlot = '<!-- shell:user-menu -->';
const pageStart = '<!-- shell:page -->';
const pageEnd = '<!-- /shell:page -->';
const signInButton =
  '<button type="submit" name="sign-in" value="" class="button primary large">Sign in</button>';

/** The query parameter index.html's "Sign in" form sends (`/?sign-in=`). */
export const signInParameter = 'sign-in';

/** The markup of the app's `<Loading>` (components/ui/status.tsx) while its first page loads. */
const loadingStatus =
  '<p class="status" role="status"><span class="spinner" aria-hidden="true"></span> Loading…</p>';
/** Room for the user menu (layout.tsx), the size of its "Sign out" button, kept invisible until it is real. */
const userMenuRoom =
  '<div class="user-menu shell-placeholder" aria-hidden="true"><span class="button">Sign out</span></div>';
const pendingSignInButton = signInButton
  .replace('class=', 'disabled class=')
  .replace('>Sign in<', '>Opening sign-in…<');

/**
 * JSON that cannot end the data block it sits in, whatever the configuration holds (F1): `<`, `>` and
 * `&` become escapes JSON.parse reads back, so neither `</script>` nor `<!--` can appear in the page.
 * U+2028 and U+2029 too, which older parsers took for line ends.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The page for one request. With `config` the app reads its settings from the page; without (the proxy
 * has not finished finding out what the platform offers), the browser is told to fetch them at once,
 * beside the app's code, rather than after it (the `fetch()` in app-config.ts takes the preload up).
 */
export function renderIndexPage(template: string, choice: ShellChoice, config: AppConfig | null): string {
  let page = template.replace(
    configSlot,
    config
      ? `<script type="application/json" id="app-config">${jsonForHtml(config)}</script>`
      : `${configSlot}<link rel="preload" href="${proxyPaths.appConfig}" as="fetch" crossorigin="anonymous" />`,
  );
  if (choice.signedIn) page = page.replace(userMenuSlot, userMenuRoom);
  const start = page.indexOf(pageStart);
  const end = page.indexOf(pageEnd);
  if (start === -1 || end < start) return page;
  if (choice.shell === 'loading') {
    page = page.slice(0, start + pageStart.length) + loadingStatus + page.slice(end);
  } else if (choice.signInPending) {
    page =
      page.slice(0, start) +
      page.slice(start, end).replace(signInButton, pendingSignInButton) +
      page.slice(end);
  }
  return page;
}
