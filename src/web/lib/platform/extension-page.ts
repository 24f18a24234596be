import { absent, json } from './answers';
import { NotOffered } from './errors';
import type { Page } from './model';
import { can, type PlatformContext } from './platform-context';

/** Our extensions that are paged lists, by their capability's name. */
export type PagedExtension = 'review' | 'reviewHistory' | 'offerings';

/**
 * One of our extensions' paged lists; a 404 or 405 means the platform has no such list (where it is
 * not known to have one), said as "this platform does not offer `feature`", never as a lack of access.
 * `path` may carry a query of its own; `cursor` is added to it.
 */
export async function extensionPage<T>(
  context: PlatformContext,
  capability: PagedExtension,
  feature: string,
  path: string,
  cursor: string | undefined,
  read: (body: unknown) => Page<T>,
): Promise<Page<T>> {
  if (can(context)[capability] === false) throw new NotOffered(feature);
  const query = new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');
  if (cursor) query.set('cursor', cursor);
  const base = path.split('?')[0];
  const response = await context.http.send(`${base}${query.size > 0 ? `?${query}` : ''}`);
  if (absent(response) && can(context)[capability] !== true) {
    context.capabilities.learn({ [capability]: false });
    throw new NotOffered(feature);
  }
  const page = read(await json(response));
  context.capabilities.learn({ [capability]: true });
  return page;
}
