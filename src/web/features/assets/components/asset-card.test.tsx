import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoredFile } from '../../../lib/platform/model';
import { ServicesContext } from '../../../lib/services';
import { http, HttpResponse, mockPlatform, platformUrl, testConfig } from '../../../testing/platform-double';
import { testServices } from '../../../testing/render';
import { AssetCard } from './asset-card';

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const logo: StoredFile = {
  id: 11,
  name: 'logo.png',
  fileType: 'logo',
  entity: { type: 'Product', id: 7 },
  private: false,
  meta: {},
  contentType: 'image/png',
  version: 'v1',
};

function renderCard() {
  const services = testServices(testConfig({ renditions: true }));
  render(
    <ServicesContext value={services}>
      <QueryClientProvider client={services.queryClient}>
        <ul>
          <AssetCard file={logo} listKey={['files']} canEdit={false} onForbidden={() => undefined} />
        </ul>
      </QueryClientProvider>
    </ServicesContext>,
  );
}

describe("a file's preview", () => {
  it('asks for a fresh address once when the one it has stops working, then falls back to the type badge', async () => {
    let handedOut = 0;
    server.use(
      http.get(`${platformUrl}/v2/core/assets/11/download_url`, () => {
        handedOut += 1;
        return HttpResponse.json({ url: `https://files.test/assets/11?n=${handedOut}` });
      }),
    );
    renderCard();
    const first = await screen.findByRole('img', { name: 'Preview of logo.png' });
    expect(first.getAttribute('src')).toBe('https://files.test/assets/11?n=1');

    // The address ended (the file changed elsewhere, H2): a new one is asked for and shown.
    fireEvent.error(first);
    await waitFor(() =>
      expect(screen.getByRole('img', { name: 'Preview of logo.png' }).getAttribute('src')).toBe(
        'https://files.test/assets/11?n=2',
      ),
    );
    // That one fails too: no endless asking, the card shows what kind of file it is instead.
    fireEvent.error(screen.getByRole('img', { name: 'Preview of logo.png' }));
    await waitFor(() => expect(screen.queryByRole('img', { name: 'Preview of logo.png' })).toBeNull());
    expect(screen.getByText('PNG')).toBeTruthy();
    expect(handedOut).toBe(2);
  });
});
