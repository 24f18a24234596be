import { useQuery, type InfiniteData } from '@tanstack/react-query';
import { act, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { EntityFiles } from '../../../lib/platform/model';
import { readFile } from '../../../lib/platform/read-shapes';
import {
  http,
  HttpResponse,
  platformDouble,
  platformUrl,
  problemResponse,
  specAsset,
  testConfig,
} from '../../../testing/platform-double';
import { useServices } from '../../../lib/services';
import { renderHookWith, testServices } from '../../../testing/render';
import { productFiles, productUploadedHere } from '../../../testing/render-slot';
import { useDeleteLater, useUpdateFile } from './asset-queries';
import { deleteKey, waitingDeletes } from '../pending-deletes';

const server = platformDouble();

const logo = readFile(specAsset())!;

/** A change to a file of one list (the files uploaded from this browser). */
function renderUpdate() {
  const list = productUploadedHere;
  const rendered = renderHookWith(() => useUpdateFile(list));
  rendered.services.queryClient.setQueryData<EntityFiles>(list.queryKey, {
    ref: { type: 'Product', id: 7 },
    files: [logo],
  });
  const shown = () => rendered.services.queryClient.getQueryData<EntityFiles>(list.queryKey)!.files![0]!;
  return { ...rendered, shown };
}

describe('rename, privacy and crop show at once', () => {
  it('and roll back, with the platform’s reason, when it refuses', async () => {
    let answer!: () => void;
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, async () => {
        await new Promise<void>((resolve) => (answer = resolve));
        return HttpResponse.json({ errors: ['Name is taken'] }, { status: 422 });
      }),
    );
    const { result, shown } = renderUpdate();
    act(() => result.current.mutate({ file: logo, changes: { name: 'Brand new.png' } }));
    await waitFor(() => expect(shown().name).toBe('Brand new.png'));
    answer();
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(shown().name).toBe('logo.png');
    expect(result.current.error?.message).toBe('Name is taken');
  });

  it('C2: and stay when the platform answers 204, as the file read back says', async () => {
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, () => new HttpResponse(null, { status: 204 })),
      http.get(`${platformUrl}/v2/core/assets/11`, () =>
        HttpResponse.json({
          asset: specAsset({ private: true, meta: { crop: { x: 1, y: 2, width: 3, height: 4 } } }),
        }),
      ),
    );
    const { result, shown } = renderUpdate();
    const meta = { crop: { x: 1, y: 2, width: 3, height: 4 } };
    act(() => result.current.mutate({ file: logo, changes: { private: true, meta } }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(shown()).toMatchObject({ private: true, crop: { x: 1, y: 2, width: 3, height: 4 } });
    // The look changed: a preview address asked for before would be stale.
    expect(shown().version).not.toBe(logo.version);
  });
});

describe('two changes to one file, the second made while the first is on its way', () => {
  it('are sent one after the other, the second with the version the first one’s answer gave', async () => {
    // The platform as it is: a change names the version it was made on, else it is refused (412).
    let stored = { ...specAsset(), etag: '"v1"' };
    const sentWith: (string | null)[] = [];
    let answerRename!: () => void;
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, async ({ request }) => {
        const ifMatch = request.headers.get('if-match');
        sentWith.push(ifMatch);
        const { asset } = (await request.json()) as { asset: { name?: string; private?: boolean } };
        if (asset.name) await new Promise<void>((resolve) => (answerRename = resolve));
        if (ifMatch !== stored.etag) return problemResponse(412, 'precondition_failed');
        stored = { ...stored, ...asset, etag: `"v${sentWith.length + 1}"` };
        return HttpResponse.json({ asset: stored }, { headers: { etag: stored.etag } });
      }),
    );
    const list = productUploadedHere;
    const file = readFile(stored)!;
    const { result, services } = renderHookWith(
      () => useUpdateFile(list, file.id),
      testServices(testConfig({ ifMatch: true })),
    );
    services.queryClient.setQueryData<EntityFiles>(list.queryKey, {
      ref: { type: 'Product', id: 7 },
      files: [file],
    });
    const shown = () => services.queryClient.getQueryData<EntityFiles>(list.queryKey)!.files![0]!;

    act(() => result.current.mutate({ file, changes: { name: 'Brand.png' } }));
    await waitFor(() => expect(sentWith).toHaveLength(1));
    act(() => result.current.mutate({ file, changes: { private: true } }));
    // Both show at once, before the platform has answered either.
    await waitFor(() => expect(shown()).toMatchObject({ name: 'Brand.png', private: true }));
    expect(sentWith).toHaveLength(1);

    answerRename();
    await waitFor(() => expect(sentWith).toHaveLength(2));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(sentWith).toEqual(['"v1"', '"v2"']);
    expect(stored).toMatchObject({ name: 'Brand.png', private: true });
  });
});

describe('an entity’s files in pages (the cache of a paged list)', () => {
  const charter = readFile(specAsset({ id: 30, name: 'charter.pdf', file_type: 'charter_document' }))!;
  const ref = { type: 'Product', id: 7 } as const;
  const pages = (): InfiniteData<EntityFiles> => ({
    pages: [
      { ref, name: 'Solar', files: [charter], next: '/v2/core/products/7/assets?cursor=c2' },
      { ref, files: [logo] },
    ],
    pageParams: [undefined, '/v2/core/products/7/assets?cursor=c2'],
  });
  const shownIn = (data: InfiniteData<EntityFiles> | undefined) =>
    data?.pages.map((page) => page.files?.map((f) => f.name));

  it('shows a change at once on the page the file is on, and rolls it back there', async () => {
    let answer!: () => void;
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, async () => {
        await new Promise<void>((resolve) => (answer = resolve));
        return HttpResponse.json({ errors: ['Name is taken'] }, { status: 422 });
      }),
    );
    const { result, services } = renderHookWith(() => useUpdateFile(productFiles));
    services.queryClient.setQueryData(productFiles.queryKey, pages());
    const cached = () => services.queryClient.getQueryData<InfiniteData<EntityFiles>>(productFiles.queryKey);
    act(() => result.current.mutate({ file: logo, changes: { name: 'Brand new.png' } }));
    await waitFor(() => expect(shownIn(cached())).toEqual([['charter.pdf'], ['Brand new.png']]));
    answer();
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(shownIn(cached())).toEqual([['charter.pdf'], ['logo.png']]);
    // The pages stay pages: where the next one starts is kept.
    expect(cached()?.pageParams).toEqual(pages().pageParams);
  });

  it('takes a deleted file out of the page it is on, once the platform has deleted it', async () => {
    server.use(
      http.delete(`${platformUrl}/v2/core/assets/11`, () => new HttpResponse(null, { status: 204 })),
    );
    const { result, services } = renderHookWith(() => useDeleteLater(productFiles, () => undefined));
    services.queryClient.setQueryData(productFiles.queryKey, pages());
    const cached = () => services.queryClient.getQueryData<InfiniteData<EntityFiles>>(productFiles.queryKey);
    act(() => result.current(logo));
    expect(waitingDeletes.isWaiting(deleteKey(logo.id))).toBe(true);
    // Leaving the page sends what waits for its undo window at once.
    act(() => void window.dispatchEvent(new Event('pagehide')));
    await waitFor(() => expect(shownIn(cached())).toEqual([['charter.pdf'], []]));
    expect(cached()?.pageParams).toEqual(pages().pageParams);
  });
});

describe('a change, once the platform has answered', () => {
  const ref = { type: 'Product', id: 7 } as const;
  const charter = readFile(specAsset({ id: 30, name: 'charter.pdf', file_type: 'charter_document' }))!;

  /** The platform lists product 7's files as `files()` has them at the time. */
  function platformLists(files: () => ReturnType<typeof specAsset>[]) {
    server.use(
      http.get(`${platformUrl}/v2/core/products/7`, () =>
        HttpResponse.json({ product: { id: 7, name: 'Solar' }, assets: files(), next_cursor: null }),
      ),
    );
  }

  /** One list of the product's files as a page shows it, read from the platform, and a change to them. */
  const listed = productUploadedHere;
  function renderList() {
    return renderHookWith(() => {
      const { platform } = useServices();
      const list = useQuery({ queryKey: listed.queryKey, queryFn: () => platform.entityFiles(ref) });
      return { names: list.data?.files?.map((f) => f.name), update: useUpdateFile(listed) };
    });
  }

  it('the list is read again: a rename the platform made though its answer was lost shows as made', async () => {
    let stored = specAsset();
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, () => {
        stored = specAsset({ name: 'Brand new.png' });
        // The platform renamed it; what reached the browser was a gateway's error.
        return HttpResponse.json({ errors: ['Bad gateway'] }, { status: 502 });
      }),
    );
    platformLists(() => [stored]);
    const { result } = renderList();
    await waitFor(() => expect(result.current.names).toEqual(['logo.png']));
    act(() => result.current.update.mutate({ file: logo, changes: { name: 'Brand new.png' } }));
    await waitFor(() => expect(result.current.update.isError).toBe(true));
    await waitFor(() => expect(result.current.names).toEqual(['Brand new.png']));
  });

  it('while another change is under way, the first to settle does not bring back its old name', async () => {
    const stored = [specAsset(), specAsset({ id: 30, name: 'charter.pdf', file_type: 'charter_document' })];
    let answerCharter!: () => void;
    server.use(
      http.put(`${platformUrl}/v2/core/assets/11`, () => {
        stored[0] = specAsset({ name: 'Brand.png' });
        return HttpResponse.json({ asset: stored[0] });
      }),
      http.put(`${platformUrl}/v2/core/assets/30`, async () => {
        await new Promise<void>((resolve) => (answerCharter = resolve));
        stored[1] = { ...stored[1]!, name: 'Charter 2026.pdf' };
        return HttpResponse.json({ asset: stored[1] });
      }),
    );
    platformLists(() => stored);
    const first = renderList();
    const second = renderHookWith(() => useUpdateFile(listed), first.services);
    await waitFor(() => expect(first.result.current.names).toEqual(['logo.png', 'charter.pdf']));
    act(() => second.result.current.mutate({ file: charter, changes: { name: 'Charter 2026.pdf' } }));
    act(() => first.result.current.update.mutate({ file: logo, changes: { name: 'Brand.png' } }));
    await waitFor(() => expect(first.result.current.update.isSuccess).toBe(true));
    await waitFor(() => expect(first.services.queryClient.isFetching()).toBe(0));
    expect(first.result.current.names).toEqual(['Brand.png', 'Charter 2026.pdf']);
    answerCharter();
    await waitFor(() => expect(second.result.current.isSuccess).toBe(true));
    await waitFor(() => expect(first.result.current.names).toEqual(['Brand.png', 'Charter 2026.pdf']));
  });

  it('a delete the platform refused: the list read again shows the file as the platform has it', async () => {
    const stored = [specAsset()];
    server.use(
      http.delete(`${platformUrl}/v2/core/assets/11`, () => {
        // Renamed elsewhere meanwhile: the ETag the delete sent no longer matches.
        stored[0] = specAsset({ name: 'Renamed elsewhere.png' });
        return HttpResponse.json({ errors: ['Changed meanwhile'] }, { status: 412 });
      }),
    );
    platformLists(() => stored);
    const list = renderList();
    const deleting = renderHookWith(() => useDeleteLater(listed, () => undefined), list.services);
    await waitFor(() => expect(list.result.current.names).toEqual(['logo.png']));
    act(() => deleting.result.current(logo));
    act(() => void window.dispatchEvent(new Event('pagehide')));
    await waitFor(() => expect(list.result.current.names).toEqual(['Renamed elsewhere.png']));
  });
});
