import { act, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EntityFiles } from '../../../lib/platform/model';
import { readFile } from '../../../lib/platform/read-shapes';
import { http, HttpResponse, mockPlatform, platformUrl, specAsset } from '../../../testing/platform-double';
import { renderHookWith } from '../../../testing/render';
import { useUpdateFile } from './asset-queries';

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const listKey = ['entities', 'Product', 7] as const;
const logo = readFile(specAsset())!;

function renderUpdate() {
  const rendered = renderHookWith(() => useUpdateFile(listKey));
  rendered.services.queryClient.setQueryData<EntityFiles>(listKey, {
    ref: { type: 'Product', id: 7 },
    files: [logo],
  });
  const shown = () => rendered.services.queryClient.getQueryData<EntityFiles>(listKey)!.files![0]!;
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
