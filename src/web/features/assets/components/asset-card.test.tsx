import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { StoredFile } from '../../../lib/platform/model';
import {
  http,
  HttpResponse,
  platformDouble,
  platformUrl,
  problemResponse,
} from '../../../testing/platform-double';
import { deck, renderCard, thumbnailUrl } from './asset-card-testing';

const server = platformDouble();

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

describe("a file's preview", () => {
  it('asks for a fresh address once when the one it has stops working, then falls back to the type badge', async () => {
    let handedOut = 0;
    server.use(
      http.get(`${platformUrl}/v2/core/assets/11/download_url`, () => {
        handedOut += 1;
        return HttpResponse.json({ url: `https://files.test/assets/11?n=${handedOut}` });
      }),
    );
    renderCard(logo);
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

/**
 * A PDF's card while the platform is still drawing its thumbnail (made after the upload was
 * answered): the card shows the file's type, asks again as the platform says, and shows the
 * thumbnail once it is there.
 */

/** The platform's answer while the thumbnail is being made. */
const pending = () =>
  problemResponse(
    409,
    'thumbnail_pending',
    { detail: 'This thumbnail is still being made; ask again in 1 second.' },
    { 'Retry-After': '1' },
  );

/** Serves the thumbnail's download_url with `answers` in turn (the last one from then on). */
function thumbnailAddress(answers: (() => Response)[]) {
  const asked: string[] = [];
  server.use(
    http.get(`${platformUrl}/v2/core/assets/12/download_url`, ({ request }) => {
      asked.push(new URL(request.url).search);
      return answers[Math.min(asked.length, answers.length) - 1]!();
    }),
  );
  return asked;
}

const preview = () => screen.queryByRole('img', { name: 'Preview of deck.pdf' });

describe("a PDF's card while its thumbnail is being made", () => {
  it('shows the type badge, asks again as the platform says, and shows the thumbnail once it is ready', async () => {
    const asked = thumbnailAddress([pending, pending, () => HttpResponse.json({ url: thumbnailUrl })]);
    renderCard(deck);
    // The first answer: still being made. The card shows what the file is, and no broken image.
    await waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(1));
    expect(screen.getByText('PDF')).toBeTruthy();
    expect(preview()).toBeNull();

    // Asked again after Retry-After (and a little longer each time) until the thumbnail is there.
    const image = await screen.findByRole('img', { name: 'Preview of deck.pdf' });
    expect(image.getAttribute('src')).toBe(thumbnailUrl);
    expect(asked).toHaveLength(3);
    // Always the small rendition of the thumbnail, never the PDF (performance.md W3).
    expect(new Set(asked)).toEqual(new Set(['?variant=preview&width=320']));
    expect(screen.queryByText('PDF')).toBeNull();
  });

  it('keeps the type badge when the thumbnail could not be made after all', async () => {
    const asked = thumbnailAddress([
      pending,
      () =>
        HttpResponse.json(
          { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' },
          { status: 404 },
        ),
    ]);
    renderCard(deck);
    await waitFor(() => expect(asked).toHaveLength(2));
    // Given up by the platform: the type, no image, no error on the card.
    await waitFor(() => expect(screen.getByText('PDF')).toBeTruthy());
    expect(preview()).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
