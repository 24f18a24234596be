import type { AppConfig } from '../shared/api/app-config';
import { slotHint } from '../shared/assets/file-types';
import { hasRelatedLine, outlineSlot, type EntityKind } from '../shared/entities/entity-kinds';
import { appConfigElementId, proxyPaths } from '../shared/api/proxy';

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
   * until its page is ready, never a flash of the sign-in page. At / with a session, where the platform
   * says who is signed in (`/v2/core/me`), the home as it loads: room for the greeting, what the page is
   * for, and a loading status where the files will be. On an entity page with a session, where the
   * platform reads entities, the page's outline as it loads (`{ entity }`).
   */
  shell: 'landing' | 'home' | 'loading' | { entity: EntityKind };
  /** "Sign in" was pressed before the app had loaded (index.html's form): the button shows it is on its way. */
  signInPending: boolean;
  /** The browser holds a session: the header shows the user menu's rows, so it does not grow when the menu appears. */
  signedIn: boolean;
}

const configBlock = (json: string) =>
  `<script type="application/json" id="${appConfigElementId}">${json}</script>`;
const configSlot = configBlock('');
const userMenuSlot = '<!-- shell:user-menu -->';
const pageStart = '<!-- shell:page -->';
const pageEnd = '<!-- /shell:page -->';
const signInButton =
  '<button type="submit" name="sign-in" value="" class="button primary large">Sign in</button>';

/** The markup of the app's `<Loading>` (components/ui/status.tsx) while its first page loads. */
const loadingStatus = (label: string) =>
  `<p class="status" role="status"><span class="spinner" aria-hidden="true"></span> ${label}</p>`;
/** The home as the app shows it while the account loads (home-page.tsx's `HomeLoading`). */
const homeLoading =
  '<div class="heading-placeholder" aria-hidden="true"></div>' +
  '<p class="lead">Choose what you want to manage files for.</p>' +
  loadingStatus('Loading your files…');
/** Text as HTML content. The catalog's words hold no markup, and a later `&` or `<` in one must not either. */
const escapeHtml = (text: string) =>
  text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
/**
 * An entity page as the app shows it while the entity loads (entity-page.tsx's `EntityLoading`): where
 * it sits, its kind, room for its name, and its first slot (`outlineSlot`: none on an accreditation)
 * with the loading status where its files will be. The slot's words are most of what a phone shows of
 * the page at first.
 */
function entityLoading(kind: EntityKind): string {
  const label = escapeHtml(kind.singular);
  const first = outlineSlot(kind.type);
  const status = loadingStatus(`Loading the ${label.toLowerCase()}…`);
  return (
    `<nav aria-label="Breadcrumb" class="breadcrumb"><a href="/">Home</a> <span aria-hidden="true">/</span> ${label}</nav>` +
    `<h1><span class="eyebrow">${label}</span> <span class="name-placeholder" aria-hidden="true"></span></h1>` +
    (hasRelatedLine(kind.type) ? '<div class="related"></div>' : '') +
    (first
      ? '<div class="slots"><section class="slot card"><div class="slot-head">' +
        `<h2>${escapeHtml(first.label)}</h2><p class="hint">${escapeHtml(slotHint(first))}</p></div>` +
        `${status}</section></div>`
      : status)
  );
}
/**
 * The user menu (layout.tsx) as it is before the account has come: the Offerings link, which works
 * without the app, the name's row still empty, and the room of "Sign out", kept invisible until the
 * app can sign out. Same rows, same height: the header does not grow when the menu becomes the app's.
 */
const userMenuRoom =
  '<div class="user-menu"><nav aria-label="Main" class="site-nav"><a href="/offerings">Offerings</a></nav>' +
  '<span class="user-name"></span>' +
  '<span class="button shell-placeholder" aria-hidden="true">Sign out</span></div>';
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
      ? configBlock(jsonForHtml(config))
      : `${configSlot}<link rel="preload" href="${proxyPaths.appConfig}" as="fetch" crossorigin="anonymous" />`,
  );
  if (choice.signedIn) page = page.replace(userMenuSlot, userMenuRoom);
  const start = page.indexOf(pageStart);
  const end = page.indexOf(pageEnd);
  if (start === -1 || end < start) return page;
  if (choice.shell !== 'landing') {
    const shell =
      choice.shell === 'home'
        ? homeLoading
        : choice.shell === 'loading'
          ? loadingStatus('Loading…')
          : entityLoading(choice.shell.entity);
    page = page.slice(0, start + pageStart.length) + shell + page.slice(end);
  } else if (choice.signInPending) {
    page =
      page.slice(0, start) +
      page.slice(start, end).replace(signInButton, pendingSignInButton) +
      page.slice(end);
  }
  return page;
}
