import { describe, expect, it } from 'vitest';
import {
  assetListAnswers,
  entityAnswers,
  http,
  HttpResponse,
  ourAccreditation,
  platformDouble,
  platformFor,
  platformUrl,
  problemResponse,
  requirements,
  specAsset,
  testConfig,
  tokenSource,
} from '../../testing/platform-double';
import { ApiError, messageOf, NotOffered, SessionEnded } from './errors';

const server = platformDouble();

const api = (path: string) => `${platformUrl}${path}`;
const product = { type: 'Product', id: 7 } as const;

/** Counts the requests MSW sees, by method and path. */
function recordRequests() {
  const seen: { method: string; path: string; headers: Headers }[] = [];
  server.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    seen.push({ method: request.method, path: url.pathname + url.search, headers: request.headers });
  });
  return seen;
}

describe('the account (GET /v2/core/me, ours)', () => {
  it('C1: a platform without /me answers null, learns it, and is not asked again', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/me'), () => HttpResponse.json({ errors: ['Not found'] }, { status: 404 })),
    );
    const { platform, capabilities } = platformFor(testConfig());
    expect(await platform.account()).toBeNull();
    expect(capabilities.current.me).toBe(false);
    expect(await platform.account()).toBeNull();
    expect(seen.filter((r) => r.path === '/v2/core/me')).toHaveLength(1);
    // Remembered for the session: a reload (a new store) does not ask again either.
    expect(platformFor(testConfig()).capabilities.current.me).toBe(false);
  });

  it('reads our platform’s account', async () => {
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 3, email: 'i@x.test', name: 'Ida', role: 'issuer' },
          entities: [
            { type: 'Product', id: 7, name: 'Solar' },
            { type: 'Bogus', id: 1 },
          ],
        }),
      ),
    );
    const { platform } = platformFor(testConfig());
    expect(await platform.account()).toEqual({
      user: { id: 3, email: 'i@x.test', name: 'Ida', role: 'issuer' },
      entities: [{ type: 'Product', id: 7, name: 'Solar' }],
    });
  });

  it("reads an accreditation's review status where the platform gives one, and only words it knows", async () => {
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [
            { type: 'Accreditation', id: 3, name: 'Mine', status: 'rejected' },
            { type: 'Accreditation', id: 4, name: 'Older' },
            { type: 'Accreditation', id: 5, name: 'Odd', status: 'in_progress' },
            { type: 'IndicationOfInterest', id: 6, name: 'Interest', status: 'approved' },
          ],
        }),
      ),
    );
    const account = await platformFor(testConfig()).platform.account();
    expect(account?.entities).toEqual([
      { type: 'Accreditation', id: 3, name: 'Mine', review: 'rejected' },
      { type: 'Accreditation', id: 4, name: 'Older' },
      { type: 'Accreditation', id: 5, name: 'Odd' },
      { type: 'IndicationOfInterest', id: 6, name: 'Interest' },
    ]);
  });
});

describe("an entity's files, in every shape the spec allows", () => {
  const files = [specAsset(), specAsset({ id: 12, name: 'cover.jpg', file_type: 'cover_image' })];

  it('reads assets sideloaded inside the entity object', async () => {
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json(entityAnswers.sideloaded('product', { id: 7, name: 'Solar' }, files)),
      ),
    );
    const answer = await platformFor(testConfig()).platform.entityFiles(product);
    expect(answer.name).toBe('Solar');
    expect(answer.files?.map((f) => f.id)).toEqual([11, 12]);
  });

  it('reads assets beside the entity at the top level (ours)', async () => {
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json(
          entityAnswers.topLevel(
            'product',
            { id: 7, name: 'Solar', links: { assets: '/v2/core/products/7/assets' } },
            files,
          ),
        ),
      ),
    );
    expect((await platformFor(testConfig()).platform.entityFiles(product)).files).toHaveLength(2);
  });

  for (const listShape of ['envelope', 'array'] as const) {
    it(`follows links.assets when that is all there is (${listShape})`, async () => {
      server.use(
        http.get(api('/v2/core/products/7'), () =>
          HttpResponse.json(
            entityAnswers.linksOnly('product', { id: 7, name: 'Solar' }, '/v2/core/products/7/assets'),
          ),
        ),
        http.get(api('/v2/core/products/7/assets'), () =>
          HttpResponse.json(assetListAnswers[listShape](files)),
        ),
      );
      const answer = await platformFor(testConfig()).platform.entityFiles(product);
      expect(answer.files?.map((f) => f.name)).toEqual(['logo.png', 'cover.jpg']);
    });
  }

  it('follows an absolute link on the platform, and refuses one that leads anywhere else with the token', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json({ product: { id: 7, links: { assets: 'https://elsewhere.test/steal' } } }),
      ),
    );
    await expect(platformFor(testConfig()).platform.entityFiles(product)).rejects.toThrow(/another address/);
    expect(seen.some((r) => r.path === '/steal')).toBe(false);
  });

  it('says the files are not listed when the platform has no entity reads (404), not that the person lacks access', async () => {
    server.use(http.get(api('/v2/core/products/7'), () => new HttpResponse('Not Found', { status: 404 })));
    expect(await platformFor(testConfig()).platform.entityFiles(product)).toEqual({
      ref: product,
      files: null,
    });
  });

  it('where entity reads are known to exist, a 404 is this entity’s: not found, or not yours', async () => {
    server.use(http.get(api('/v2/core/products/7'), () => new HttpResponse(null, { status: 404 })));
    const failure = await platformFor(testConfig({ entityReads: true }))
      .platform.entityFiles(product)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(messageOf(failure)).toBe('This was not found, or you do not have access to it.');
  });

  it('asks nothing for a kind configured as unreadable (PLATFORM_ENTITY_PATHS=Product=none)', async () => {
    const seen = recordRequests();
    const config = testConfig();
    config.entityPaths.Product = null;
    expect((await platformFor(config).platform.entityFiles(product)).files).toBeNull();
    expect(seen).toHaveLength(0);
  });

  it('reads crops whose numbers came back as strings (a form-encoded create on a Rails-like platform)', async () => {
    server.use(
      http.get(api('/v2/core/assets/11'), () =>
        HttpResponse.json({
          asset: specAsset({ meta: { crop: { x: '10', y: '0', width: '50', height: '40' } } }),
        }),
      ),
    );
    const file = await platformFor(testConfig()).platform.file(11);
    expect(file?.crop).toEqual({ x: 10, y: 0, width: 50, height: 40 });
  });
});

describe("an entity's files a page at a time (ours: next_cursor beside the assets)", () => {
  const charter = (id: number) => specAsset({ id, name: `charter-${id}.pdf`, file_type: 'charter_document' });
  const links = { assets: '/v2/core/products/7/assets' };

  /** Our platform's answers: the read with page 1, and the list's later pages by cursor. */
  function pagedPlatform(options: { logo?: boolean; filterIgnored?: boolean } = {}) {
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json({
          product: { id: 7, name: 'Solar', links: { ...links, next_assets: `${links.assets}?cursor=c2` } },
          assets: [charter(30), charter(29)],
          next_cursor: 'c2',
        }),
      ),
      http.get(api('/v2/core/products/7/assets'), ({ request }) => {
        const query = new URL(request.url).searchParams;
        const type = query.get('file_type');
        if (type && !options.filterIgnored)
          return HttpResponse.json({
            assets: type === 'logo' && options.logo ? [specAsset({ id: 3 })] : [],
            next_cursor: null,
          });
        if (query.get('cursor') === 'c2')
          return HttpResponse.json({ assets: [charter(28), charter(27)], next_cursor: 'c3' });
        if (query.get('cursor') === 'c3')
          return HttpResponse.json({ assets: [specAsset({ id: 3 })], next_cursor: null });
        return HttpResponse.json({ assets: [charter(30), charter(29)], next_cursor: 'c2' });
      }),
    );
  }

  it('gives the first page and where the next one is, then each page after it until the last', async () => {
    pagedPlatform();
    const seen = recordRequests();
    const { platform } = platformFor(testConfig());
    const first = await platform.entityFiles(product);
    expect(first.files?.map((f) => f.id)).toEqual([30, 29]);
    expect(first.next).toBe('/v2/core/products/7/assets?cursor=c2');
    const second = await platform.moreFiles(product, first.next!);
    expect(second.items.map((f) => f.id)).toEqual([28, 27]);
    expect(second.next).toBe('/v2/core/products/7/assets?cursor=c3');
    const last = await platform.moreFiles(product, second.next!);
    expect(last).toEqual({ items: [expect.objectContaining({ id: 3, fileType: 'logo' })] });
    expect(seen.map((r) => r.path)).toEqual([
      '/v2/core/products/7',
      '/v2/core/products/7/assets?cursor=c2',
      '/v2/core/products/7/assets?cursor=c3',
    ]);
  });

  it('pages a list it found at links.assets the same way', async () => {
    pagedPlatform();
    server.use(http.get(api('/v2/core/products/7'), () => HttpResponse.json({ product: { id: 7, links } })));
    const first = await platformFor(testConfig()).platform.entityFiles(product);
    expect(first.files?.map((f) => f.id)).toEqual([30, 29]);
    expect(first.next).toBe('/v2/core/products/7/assets?cursor=c2');
  });

  it('brings the newest file of each single-file slot that the first page lacks, and only those', async () => {
    pagedPlatform({ logo: true });
    const seen = recordRequests();
    const { platform } = platformFor(testConfig());
    const first = await platform.entityFiles(product, {
      newestOf: ['logo', 'cover_image', 'charter_document'],
    });
    expect(first.files?.map((f) => [f.id, f.fileType])).toEqual([
      [30, 'charter_document'],
      [29, 'charter_document'],
      [3, 'logo'],
    ]);
    expect(first.next).toBe('/v2/core/products/7/assets?cursor=c2');
    expect(seen.map((r) => r.path).sort()).toEqual([
      '/v2/core/products/7',
      '/v2/core/products/7/assets?file_type=cover_image&limit=1',
      '/v2/core/products/7/assets?file_type=logo&limit=1',
    ]);
  });

  it('takes nothing for a slot from a platform that ignores the file type asked for', async () => {
    pagedPlatform({ filterIgnored: true });
    const first = await platformFor(testConfig()).platform.entityFiles(product, { newestOf: ['logo'] });
    expect(first.files?.map((f) => f.id)).toEqual([30, 29]);
  });

  it('C1: a list without a cursor is whole, as the spec’s are: nothing more is asked for', async () => {
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json({ product: { id: 7, name: 'Solar', links }, assets: [charter(30), specAsset()] }),
      ),
    );
    const seen = recordRequests();
    const answer = await platformFor(testConfig()).platform.entityFiles(product, {
      newestOf: ['logo', 'cover_image'],
    });
    expect(answer.files?.map((f) => f.id)).toEqual([30, 11]);
    expect(answer).not.toHaveProperty('next');
    expect(seen.map((r) => r.path)).toEqual(['/v2/core/products/7']);
  });
});

describe('updates the spec leaves open (4.6: response not shown)', () => {
  for (const [what, answer] of [
    ['200 with the asset', () => HttpResponse.json({ asset: specAsset({ name: 'New name' }) })],
    ['204 and no body', () => new HttpResponse(null, { status: 204 })],
    ['200 with something else', () => HttpResponse.json({ ok: true })],
  ] as const) {
    it(`C2: ${what} is a success, and the file as the platform now has it comes back`, async () => {
      const seen = recordRequests();
      server.use(
        http.put(api('/v2/core/assets/11'), answer),
        http.get(api('/v2/core/assets/11'), () =>
          HttpResponse.json({ asset: specAsset({ name: 'New name' }) }),
        ),
      );
      const updated = await platformFor(testConfig()).platform.update({ id: 11 }, { name: 'New name' });
      expect(updated?.name).toBe('New name');
      const reread = seen.some((r) => r.method === 'GET' && r.path === '/v2/core/assets/11');
      expect(reread).toBe(what !== '200 with the asset');
    });
  }

  it('sends If-Match only where the platform gave an ETag and the header may be sent', async () => {
    const seen = recordRequests();
    server.use(http.put(api('/v2/core/assets/11'), () => HttpResponse.json({ asset: specAsset() })));
    await platformFor(testConfig({ ifMatch: true })).platform.update(
      { id: 11, etag: '"v1"' },
      { private: true },
    );
    await platformFor(testConfig({ ifMatch: false })).platform.update(
      { id: 11, etag: '"v1"' },
      { private: true },
    );
    expect(seen.map((r) => r.headers.get('if-match'))).toEqual(['"v1"', null]);
  });
});

describe('addresses of files (4.5), with or without renditions', () => {
  it('asks for a rendition where the platform makes them', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/assets/11/download_url'), () =>
        HttpResponse.json({ url: 'https://files.test/11' }),
      ),
    );
    const address = await platformFor(testConfig({ renditions: true })).platform.address(11, {
      variant: 'cropped',
      width: 320,
    });
    expect(address).toEqual({ url: 'https://files.test/11', rendered: true });
    expect(seen[0]!.path).toBe('/v2/core/assets/11/download_url?variant=cropped&width=320');
  });

  for (const renditions of [false, null]) {
    it(`asks in the spec's exact form, and says the original comes, where renditions are ${String(renditions)}`, async () => {
      const seen = recordRequests();
      server.use(
        http.get(api('/v2/core/assets/11/download_url'), () =>
          HttpResponse.json({ url: 'https://files.test/11' }),
        ),
      );
      const address = await platformFor(testConfig({ renditions })).platform.address(11, {
        variant: 'preview',
        width: 320,
      });
      expect(address.rendered).toBe(false);
      expect(seen[0]!.path).toBe('/v2/core/assets/11/download_url');
    });
  }
});

describe('the review queue (ours)', () => {
  it('C1: a platform without one says it does not offer it, never that the person may not see it', async () => {
    server.use(http.get(api('/v2/core/accreditations'), () => new HttpResponse(null, { status: 404 })));
    const failure = await platformFor(testConfig())
      .platform.reviewList('pending')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NotOffered);
    expect(messageOf(failure)).toBe('This platform does not offer a review queue.');
  });

  it('pages through the queue with the cursor the platform gives, reading review and ETag', async () => {
    const seen = recordRequests();
    const accreditation = (id: number) => ({
      id,
      name: `Accreditation ${id}`,
      status: 'pending',
      review_note: null,
      reviewed_at: null,
      reviewed_by: null,
      owner: { id: 1, name: 'Ivy', email: 'ivy@x.test' },
      etag: `"accreditation.${id}.1"`,
      assets: [specAsset({ id: 100 + id, assetable: { type: 'Accreditation', id } })],
    });
    server.use(
      http.get(api('/v2/core/accreditations'), ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        return HttpResponse.json(
          cursor === 'page-2'
            ? { accreditations: [accreditation(2)], next_cursor: null }
            : { accreditations: [accreditation(1)], next_cursor: 'page-2' },
        );
      }),
    );
    const { platform } = platformFor(testConfig());
    const first = await platform.reviewList('pending');
    expect(first.next).toBe('page-2');
    expect(first.items[0]).toMatchObject({
      id: 1,
      review: { status: 'pending' },
      etag: '"accreditation.1.1"',
    });
    expect(first.items[0]!.files.map((f) => f.id)).toEqual([101]);
    const second = await platform.reviewList('pending', first.next);
    expect(second).toMatchObject({ items: [{ id: 2 }] });
    expect(second.next).toBeUndefined();
    expect(seen.map((r) => r.path)).toEqual([
      '/v2/core/accreditations?status=pending',
      '/v2/core/accreditations?status=pending&cursor=page-2',
    ]);
  });
});

describe("an accreditation's review and history, and the offerings (ours)", () => {
  it("reads the review from the owner's accreditation, and who decided", async () => {
    server.use(
      http.get(api('/v2/core/accreditations/3'), () =>
        HttpResponse.json({
          accreditation: {
            id: 3,
            name: 'Accreditation of Ivy',
            status: 'rejected',
            review_note: 'The letter is not signed.',
            reviewed_at: '2026-11-20T10:00:00.000Z',
            reviewed_by: { id: 9, name: 'Ada Admin' },
            links: { assets: '/v2/core/accreditations/3/assets' },
          },
          assets: [],
        }),
      ),
    );
    const entity = await platformFor(testConfig()).platform.entityFiles({ type: 'Accreditation', id: 3 });
    expect(entity.review).toEqual({
      status: 'rejected',
      note: 'The letter is not signed.',
      decidedAt: '2026-11-20T10:00:00.000Z',
      decidedBy: 'Ada Admin',
    });
  });

  it('links a product to its investments and team members', async () => {
    server.use(
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json({
          product: {
            id: 7,
            name: 'Solar',
            investments: [{ id: 1, name: 'Series A' }],
            team_members: [{ id: 4, name: 'Omar' }],
          },
          assets: [],
        }),
      ),
    );
    const entity = await platformFor(testConfig()).platform.entityFiles(product);
    expect(entity.related).toEqual([
      { type: 'Investment', id: 1, name: 'Series A' },
      { type: 'TeamMember', id: 4, name: 'Omar' },
    ]);
  });

  it('C1: history and offerings a platform lacks are "not offered", and not asked for again', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/accreditations/3/history'), () => new HttpResponse(null, { status: 404 })),
      http.get(api('/v2/core/products'), () => new HttpResponse(null, { status: 405 })),
    );
    const { platform } = platformFor(testConfig());
    await expect(platform.history(3)).rejects.toThrow('This platform does not offer a history of decisions.');
    await expect(platform.offerings()).rejects.toThrow('This platform does not offer a list of offerings.');
    await expect(platform.offerings()).rejects.toBeInstanceOf(NotOffered);
    expect(seen).toHaveLength(2);
  });

  it('reads offerings with their logos, page by page', async () => {
    server.use(
      http.get(api('/v2/core/products'), () =>
        HttpResponse.json({
          products: [
            { id: 7, name: 'Solar', logo_asset_id: 11 },
            { id: 8, name: 'Lofts', logo_asset_id: null },
          ],
          next_cursor: null,
        }),
      ),
    );
    expect(await platformFor(testConfig()).platform.offerings()).toEqual({
      items: [
        { id: 7, name: 'Solar', logoId: 11 },
        { id: 8, name: 'Lofts' },
      ],
    });
  });

  it('asks for the next page of offerings with the cursor the last one gave, until there is none', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/products'), ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        return HttpResponse.json(
          cursor === null
            ? { products: [{ id: 9, name: 'Nine', logo_asset_id: 3 }], next_cursor: 'after-9' }
            : { products: [{ id: 8, name: 'Eight', logo_asset_id: null }], next_cursor: null },
        );
      }),
    );
    const { platform, capabilities } = platformFor(testConfig());
    const first = await platform.offerings();
    expect(first).toEqual({ items: [{ id: 9, name: 'Nine', logoId: 3 }], next: 'after-9' });
    expect(capabilities.current.offerings).toBe(true);
    expect(await platform.offerings(first.next)).toEqual({ items: [{ id: 8, name: 'Eight' }] });
    expect(seen.map((r) => r.path)).toEqual(['/v2/core/products', '/v2/core/products?cursor=after-9']);
  });
});

describe('the review contract (issue 28, ours)', () => {
  it('reads the checklist, the last decision and the counts; searches with q', async () => {
    const seen = recordRequests();
    const decided = {
      status: 'rejected' as const,
      reason: 'expired' as const,
      note: 'Out of date.',
      at: '2026-11-20T10:00:00.000Z',
      by: { id: 9, name: 'Ada Admin' },
      history_id: 4,
      file_ids: [101, 'x'],
    };
    server.use(
      http.get(api('/v2/core/accreditations'), () =>
        HttpResponse.json({
          accreditations: [
            {
              ...ourAccreditation({
                id: 1,
                status: 'pending',
                submitted_at: '2026-11-21T10:00:00.000Z',
                address_on_licence: false,
              }),
              last_decision: decided,
              // Another platform's kind, unknown to the app, among ours.
              requirements: [
                ...requirements({ accreditation_letter: true }, false),
                { kind: 'odd', met: true },
              ],
              assets: [],
            },
          ],
          next_cursor: null,
          counts: { documents_needed: 4, pending: 2, approved: 7, rejected: 1 },
        }),
      ),
    );
    const page = await platformFor(testConfig()).platform.reviewList('pending', undefined, 'ivy inv');
    expect(seen.map((r) => r.path)).toEqual(['/v2/core/accreditations?status=pending&q=ivy+inv']);
    expect(page.counts).toEqual({ waiting: 2, decided: 8, documentsNeeded: 4 });
    const review = page.items[0]!.review!;
    expect(review).toMatchObject({
      status: 'pending',
      submittedAt: '2026-11-21T10:00:00.000Z',
      addressOnLicence: false,
      etag: '"accreditation.1.1"',
      lastDecision: {
        status: 'rejected',
        reason: 'expired',
        note: 'Out of date.',
        by: 'Ada Admin',
        fileIds: [101],
      },
    });
    // A requirement of a kind the app does not know is left out rather than shown wrongly.
    expect(review.requirements?.map((r) => [r.kind, r.met, r.minFiles])).toEqual([
      ['accreditation_letter', true, 1],
      ['drivers_license', false, 2],
      ['utility_bill', false, 1],
    ]);
  });

  it('reads a list without counts or checklist as before: none of either', async () => {
    server.use(
      http.get(api('/v2/core/accreditations'), () =>
        HttpResponse.json({ accreditations: [{ id: 1, status: 'pending', assets: [] }], next_cursor: null }),
      ),
    );
    const page = await platformFor(testConfig()).platform.reviewList('pending');
    expect(page.counts).toBeUndefined();
    expect(page.items[0]!.review).toEqual({ status: 'pending' });
  });

  it('sends a rejection with its reason, a send for review and the address answer', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.put(api('/v2/core/accreditations/3'), async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({});
      }),
    );
    const { platform } = platformFor(testConfig());
    await platform.review(3, { status: 'rejected', reason: 'other', note: 'See the date.' });
    // A reason never goes with an approval.
    await platform.review(3, { status: 'approved', reason: 'other', note: '' });
    await platform.sendForReview(3);
    await platform.setAddressOnLicence(3, false);
    expect(bodies).toEqual([
      { accreditation: { status: 'rejected', reason: 'other', note: 'See the date.' } },
      { accreditation: { status: 'approved' } },
      { accreditation: { status: 'pending' } },
      { accreditation: { address_on_licence: false } },
    ]);
  });
});

describe('review decisions (ours)', () => {
  it('sends the decision in the platform’s shape, the note only when there is one', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.put(api('/v2/core/accreditations/3'), async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ accreditation: { id: 3, status: 'approved' } });
      }),
    );
    const { platform } = platformFor(testConfig());
    // The caller's own object may carry more (the id): only status and note go to the platform.
    const decision = { id: 3, status: 'approved' as const, note: 'Documents check out.' };
    await platform.review(3, decision);
    await platform.review(3, { status: 'rejected', note: '' });
    expect(bodies).toEqual([
      { accreditation: { status: 'approved', note: 'Documents check out.' } },
      { accreditation: { status: 'rejected' } },
    ]);
  });
});

describe('sessions at the API', () => {
  it('renews once after a 401 and sends the request again with the new token', async () => {
    const seen = recordRequests();
    server.use(
      http.get(api('/v2/core/assets/11'), ({ request }) =>
        request.headers.get('authorization') === 'Bearer token-2'
          ? HttpResponse.json({ asset: specAsset() })
          : new HttpResponse(null, { status: 401 }),
      ),
    );
    const tokens = tokenSource('token-1', ['token-2']);
    expect((await platformFor(testConfig(), tokens).platform.file(11))?.id).toBe(11);
    expect(tokens.renewals).toBe(1);
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('ends the session when renewal is refused, with words that say so', async () => {
    server.use(http.get(api('/v2/core/assets/11'), () => new HttpResponse(null, { status: 401 })));
    const built = platformFor(testConfig(), tokenSource('token-1', [null]));
    const failure = await built.platform.file(11).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SessionEnded);
    expect(messageOf(failure)).toBe('Your session ended. Sign in again to continue.');
    expect(built.sessionEnded()).toBe(1);
  });
});

describe('errors, whatever the platform answers', () => {
  it('shows a problem’s detail, a conventional error list, or words for the status', async () => {
    server.use(
      http.put(api('/v2/core/assets/1'), () =>
        problemResponse(422, 'validation_failed', { detail: 'name: must not be empty' }),
      ),
      http.put(api('/v2/core/assets/2'), () =>
        HttpResponse.json({ errors: ['Name is too long'] }, { status: 422 }),
      ),
      http.put(api('/v2/core/assets/3'), () => new HttpResponse('<h1>Bad</h1>', { status: 413 })),
      http.put(api('/v2/core/assets/4'), () => HttpResponse.json({ error: 'server_error' }, { status: 500 })),
    );
    const { platform } = platformFor(testConfig());
    const messages = await Promise.all(
      [1, 2, 3, 4].map((id) => platform.update({ id }, { name: 'x' }).catch((e: unknown) => messageOf(e))),
    );
    expect(messages).toEqual([
      'name: must not be empty',
      'Name is too long',
      'The file is too large for the platform.',
      'The platform had a problem. Please try again in a moment.',
    ]);
  });
});
