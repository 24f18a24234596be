import { entityPaths } from '../../../shared/api/entities';
import { absent, json, withQuery } from './answers';
import { extensionPage } from './extension-page';
import type { FirstResponses } from './first-responses';
import type { Account, EntityFiles, EntityRef, Offering, Page, StoredFile } from './model';
import { can, type PlatformContext } from './platform-context';
import { readAccount, readEntity, readFilePage, readOffering, readPage } from './read-shapes';

/** The signed-in user and what they own (ours: `/me`); null, and not asked again, where there is none. */
export async function loadAccount(context: PlatformContext, first?: FirstResponses): Promise<Account | null> {
  if (can(context).me === false) return null;
  const response = await firstRead(context, '/v2/core/me', first);
  if (absent(response)) {
    context.capabilities.learn({ me: false });
    return null;
  }
  const found = readAccount(await json(response));
  context.capabilities.learn({ me: found !== undefined });
  return found ?? null;
}

/**
 * A GET of `path`, or the answer the page's start already has for it (`first`): a read that could not
 * be made then (null) is made now.
 */
async function firstRead(context: PlatformContext, path: string, first?: FirstResponses): Promise<Response> {
  const early = await first?.take(context.http.url(path))?.catch(() => null);
  return early ? context.http.answered(path, early) : context.http.send(path);
}

/** An entity's name and files, as far as the platform lists them: `Platform.entityFiles`. */
export async function loadEntityFiles(
  context: PlatformContext,
  ref: EntityRef,
  options: { newestOf?: readonly string[]; first?: FirstResponses } = {},
): Promise<EntityFiles> {
  const template = context.config.entityPaths[ref.type];
  if (!template || can(context).entityReads === false) return { ref, files: null };
  const response = await firstRead(context, template.replace(':id', String(ref.id)), options.first);
  // Where the platform is known to read entities, a 404 is this entity's: not there, or not yours.
  if (absent(response) && can(context).entityReads !== true) {
    if (response.status === 405) context.capabilities.learn({ entityReads: false });
    return { ref, files: null };
  }
  const answer = readEntity(await json(response), ref, entityPaths[ref.type].singular);
  context.capabilities.learn({ entityReads: true });
  const { name, review, related } = answer;
  const about = { ref, name, ...(review ? { review } : {}), ...(related ? { related } : {}) };
  if ('files' in answer && answer.files === null) return { ...about, files: null };
  const page = 'files' in answer ? answer : await filePage(context, ref, answer.filesAt);
  if (!page) return { ...about, files: null };
  const listAt = 'filesAt' in answer ? answer.filesAt : undefined;
  // A cursor without the list's address cannot be followed: the first page is all there is to show.
  if (!page.cursor || !listAt) return { ...about, files: page.files };
  const newest = await newestOfTypes(context, ref, listAt, page.files, options.newestOf ?? []);
  return { ...about, files: [...page.files, ...newest], next: withQuery(listAt, { cursor: page.cursor }) };
}

/** The page of an entity's files that an earlier one's `next` leads to. */
export async function loadMoreFiles(
  context: PlatformContext,
  ref: EntityRef,
  next: string,
): Promise<Page<StoredFile>> {
  const page = await filePage(context, ref, next);
  if (!page) throw new Error('The platform’s next page of files could not be read.');
  return { items: page.files, ...(page.cursor ? { next: withQuery(next, { cursor: page.cursor }) } : {}) };
}

/** One page of a list of files at `link`, only the files of `ref` (a lenient reading). */
async function filePage(context: PlatformContext, ref: EntityRef, link: string) {
  const page = readFilePage(await json(await context.http.send(link)));
  return (
    page && {
      ...page,
      files: page.files.filter((f) => f.entity.type === ref.type && f.entity.id === ref.id),
    }
  );
}

/**
 * For each of `fileTypes` without a file on the first page, the newest file of that type (ours:
 * `?file_type=…&limit=1`). A platform that ignores the filter answers other types, which are left
 * out: its slot then shows what the pages hold.
 */
async function newestOfTypes(
  context: PlatformContext,
  ref: EntityRef,
  listAt: string,
  first: StoredFile[],
  fileTypes: readonly string[],
) {
  const missing = fileTypes.filter((type) => !first.some((f) => f.fileType === type));
  const found = await Promise.all(
    missing.map(async (fileType) => {
      const page = await filePage(context, ref, withQuery(listAt, { file_type: fileType, limit: '1' }));
      return page?.files.find((f) => f.fileType === fileType);
    }),
  );
  return found.filter((file): file is StoredFile => file !== undefined);
}

/** The products (offerings) the person may read, newest first (ours). */
export function loadOfferings(context: PlatformContext, cursor?: string): Promise<Page<Offering>> {
  return extensionPage(context, 'offerings', 'a list of offerings', '/v2/core/products', cursor, (body) =>
    readPage(body, 'products', readOffering),
  );
}
