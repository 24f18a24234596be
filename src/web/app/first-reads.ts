import { apiPaths } from '../../shared/api/paths';
import type { AppConfig } from '../../shared/api/app-config';
import { entityAt } from '../../shared/entities/entity-kinds';
import type { FirstResponses } from '../lib/platform/first-responses';
import type { PlatformHttp } from '../lib/platform/http';
import { signInParameter, type ReadAlong } from '../../shared/api/proxy';
import type { Session } from '../lib/session';

/**
 * The first page's data, asked for as the page starts (main.tsx), while the app's code (React, the
 * router, the pages) is still loading and running: on a throttled phone that takes longer than the
 * requests, which used to wait for it and then for each other (the session's renewal, then the
 * account and the entity, each with a CORS preflight). performance.md W4.
 */

/**
 * What the page at `location` reads first, as prefetchFirstPage (first-paint.ts) asks for it: the
 * account on every signed-in page (the user menu shows it), and the entity on an entity page. Nothing
 * where the session must not be touched before the app runs: the sign-in callback (its code exchange
 * sets the session) and a "Sign in" pressed before the app had loaded.
 */
export function firstPageReads(location: Pick<Location, 'pathname' | 'search'>, config: AppConfig): string[] {
  if (location.pathname === '/auth/callback') return [];
  if (new URLSearchParams(location.search).has(signInParameter)) return [];
  const reads: string[] = config.capabilities.me === false ? [] : [apiPaths.me];
  const entity = entityAt(location.pathname);
  const template = entity && config.entityPaths[entity.kind.type];
  if (template && config.capabilities.entityReads !== false)
    reads.push(template.replace(':id', String(entity.id)));
  return reads;
}

/**
 * The first page's own code where it comes in a chunk of its own (an entity page: router.tsx's `lazy`),
 * asked for at once, so that it loads and runs while the session is renewed rather than once the app
 * has started and its router asks for it. The router then finds the module ready.
 */
export function loadFirstPageCode(location: Pick<Location, 'pathname'>): void {
  if (entityAt(location.pathname)) void import('./routes/entity-page').catch(() => undefined);
}

/** The platform's answer to a read the proxy made along with the renewal, as the page would have had it. */
function responseOf(read: ReadAlong): Response {
  return new Response(read.body, {
    status: read.status,
    headers: read.content_type ? { 'content-type': read.content_type } : {},
  });
}

/**
 * Starts the session (renewing it where this tab holds no usable token) and the first page's reads:
 * along with the renewal where one is needed, else straight to the platform with the token. The answers
 * wait in `first` for the first page's queries to take them (first-paint.ts); without a session there
 * is nothing to read.
 * Settles once the requests have left, so that the app's code runs while they travel, not before they
 * leave: its first run holds the main thread for a while on a slow phone.
 */
export async function startFirstReads(
  reads: string[],
  { session, http, first }: { session: Session; http: PlatformHttp; first: FirstResponses },
): Promise<void> {
  if (reads.length === 0) return;
  const { asked, started } = session.begin(reads);
  for (const path of reads) {
    const answer = started.then(({ token, reads: along }) => {
      const read = along.find((r) => r.path === path);
      if (read) return responseOf(read);
      return token === null ? null : http.readWith(path, token);
    });
    // A read that failed is made again by the query that takes it, which then says why.
    first.put(
      http.url(path),
      answer.catch(() => null),
    );
  }
  await asked;
}
