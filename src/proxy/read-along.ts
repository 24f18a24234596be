import { apiPaths } from '../shared/api/paths';
import type { ReadAlong } from '../shared/api/proxy';
import type { ProxyConfig } from './env';

/**
 * The first page's reads, made by the proxy with the access token a renewal has just brought, and
 * answered along with it (performance.md W4). On a throttled phone every round trip costs 150 ms and a
 * read straight to the platform costs two (a CORS preflight, then the read) on top of the renewal's:
 * asked for with the renewal (`read`, space-separated paths), the page has its account and its entity
 * in the renewal's own round trip.
 *
 * Why this puts nothing where it did not go before: the answer goes only where the access token goes
 * already, to the app's own page in the token endpoint's answer (`no-store`), which another origin can
 * neither ask for (the Origin and Fetch Metadata checks, the header that needs a preflight nobody
 * grants, the SameSite=Strict cookie: P4) nor read. The token goes only to the configured platform, in
 * the Authorization header, as the app would send it; no cookie and nothing else of the browser's
 * request goes with it (P7). The paths are not the browser's to choose: only `/v2/core/me` and the
 * configured entity reads with a numeric id, a few at most, so the endpoint cannot be made to read
 * anything else. The refresh token stays in its cookie (P9).
 */

/** As many as one page reads first (the account and its entity), with room to spare. */
const maxReads = 4;
/**
 * A read that takes longer is left out and made by the app itself: the renewal, which the whole page
 * waits for, must not wait long for a read that is only meant to save time.
 */
const readTimeoutMs = 2_000;
/** An entity's first page of files is tens of KB; a larger answer is the app's to read itself. */
const maxBodyBytes = 1024 * 1024;
/** Statuses a browser's Response can be rebuilt with carrying a body (not 204, 205, 304). */
const carriesBody = (status: number) => status >= 200 && status <= 599 && ![204, 205, 304].includes(status);

/**
 * The paths of a `read` field the proxy will read: the account, and the configured entity reads
 * (`/v2/core/products/:id`) with a whole-number id. Anything else is not read (and not an error: the
 * renewal still succeeds, and the app reads what it needs itself).
 */
export function readsAsked(field: string | undefined, config: Pick<ProxyConfig, 'entityPaths'>): string[] {
  if (!field) return [];
  const templates = Object.values(config.entityPaths).filter((path): path is string => path !== null);
  const allowed = (path: string) =>
    path === apiPaths.me ||
    templates.some((template) => {
      const [before, after] = template.split(':id');
      if (after === undefined || !path.startsWith(before!) || !path.endsWith(after)) return false;
      return /^[1-9]\d{0,15}$/.test(path.slice(before!.length, path.length - after.length));
    });
  return [...new Set(field.split(' '))].filter(allowed).slice(0, maxReads);
}

/**
 * Reads `paths` at the platform with `accessToken`, side by side; answers those that came in time
 * (a read that failed, stalled or was too large is left out).
 */
export async function readAlong(
  paths: string[],
  accessToken: string,
  platform: { platformBaseUrl: string; fetch?: typeof fetch },
): Promise<ReadAlong[]> {
  const base = platform.platformBaseUrl.replace(/\/+$/, '');
  const fetchUpstream = platform.fetch ?? fetch;
  const reads = await Promise.all(
    paths.map(async (path): Promise<ReadAlong | null> => {
      try {
        const response = await fetchUpstream(`${base}${path}`, {
          headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(readTimeoutMs),
        });
        const declared = Number(response.headers.get('content-length') ?? 0);
        if (!carriesBody(response.status) || declared > maxBodyBytes) {
          await response.body?.cancel().catch(() => undefined);
          return null;
        }
        const body = await response.text();
        if (Buffer.byteLength(body) > maxBodyBytes) return null;
        const type = response.headers.get('content-type');
        return {
          path,
          status: response.status,
          ...(type && /^[\w.+-]+\/[\w.+-]+(\s*;[\w\s=."+-]*)?$/.test(type) ? { content_type: type } : {}),
          body,
        };
      } catch {
        return null;
      }
    }),
  );
  return reads.filter((read): read is ReadAlong => read !== null);
}
