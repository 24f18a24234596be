import { act, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { resumableFromBytes } from '../../../../shared/api/resumable-uploads';
import {
  http,
  HttpResponse,
  platformDouble,
  platformUrl,
  specAsset,
  testConfig,
} from '../../../testing/platform-double';
import { renderHookWith, testServices } from '../../../testing/render';
import { tusPlatform } from '../../../testing/tus-double';
import { useUploads } from './use-uploads';

const server = platformDouble();

describe('uploads from one page', () => {
  for (const [status, body, retryable, words] of [
    [
      415,
      {
        type: 'about:blank',
        title: 'Unsupported',
        status: 415,
        code: 'unsupported_media_type',
        detail: 'application/x-msdownload is not accepted for pitch_deck',
      },
      false,
      'deck.pdf is not a kind of file this slot takes: upload a PDF, image, Office document, CSV or text file.',
    ],
    [413, { errors: ['too big'] }, false, 'deck.pdf is too large for this slot.'],
    [503, {}, true, 'The platform had a problem. Please try again in a moment.'],
    [429, { errors: ['Slow down'] }, true, 'Slow down'],
  ] as const) {
    it(`words a ${status} for people, and offers Retry only if trying again can work (${String(retryable)})`, async () => {
      server.use(http.post(`${platformUrl}/v2/core/assets`, () => HttpResponse.json(body, { status })));
      const { result } = renderHookWith(() =>
        useUploads({
          entity: { type: 'Product', id: 7 },
          fileType: 'pitch_deck',
          onUploaded: () => undefined,
          onForbidden: () => undefined,
        }),
      );
      act(() => void result.current.start(new File(['x'], 'deck.pdf'), { private: false, meta: {} }));
      await waitFor(() => expect(result.current.items[0]?.phase).toBe('failed'));
      expect(result.current.items[0]).toMatchObject({ error: words, retryable });
    });
  }

  it('H14: never more than three at once, however many files are dropped together', async () => {
    let inFlight = 0;
    let most = 0;
    let created = 0;
    const release: (() => void)[] = [];
    server.use(
      http.post(`${platformUrl}/v2/core/assets`, async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Held until the test lets it go, so that every upload that can start has started.
        await new Promise<void>((resolve) => release.push(resolve));
        inFlight -= 1;
        created += 1;
        return HttpResponse.json({ asset: specAsset({ id: 100 + created }) }, { status: 201 });
      }),
    );
    const uploaded: number[] = [];
    const { result } = renderHookWith(() =>
      useUploads({
        entity: { type: 'Product', id: 7 },
        fileType: 'pitch_deck',
        onUploaded: ({ file }) => uploaded.push(file.id),
        onForbidden: () => undefined,
      }),
    );
    act(() => {
      for (let i = 0; i < 8; i++) {
        result.current.start(new File([`deck ${i}`], `deck-${i}.pdf`), { private: false, meta: {} });
      }
    });
    // Each time: as many in flight as the limit allows (a fourth would fail the wait), then one ends.
    for (let done = 0; done < 8; done++) {
      await waitFor(() => expect(inFlight).toBe(Math.min(3, 8 - done)));
      release.shift()!();
      await waitFor(() => expect(created).toBe(done + 1));
    }
    await waitFor(() => expect(uploaded).toHaveLength(8));
    expect(most).toBe(3);
    // Each finished row gave way to its card at once; one line counts them.
    await waitFor(() => expect(result.current.items).toEqual([]));
    expect(result.current.finished).toBe(8);
  });

  it('a refusal (403) says the person may not do this, and tells the page', async () => {
    server.use(
      http.post(`${platformUrl}/v2/core/assets`, () =>
        HttpResponse.json({ errors: ['Forbidden'] }, { status: 403 }),
      ),
    );
    let forbidden = 0;
    const { result } = renderHookWith(() =>
      useUploads({
        entity: { type: 'Product', id: 9 },
        fileType: 'pitch_deck',
        onUploaded: () => undefined,
        onForbidden: () => (forbidden += 1),
      }),
    );
    act(() => result.current.start(new File(['x'], 'deck.pdf'), { private: false, meta: {} }));
    await waitFor(() => expect(result.current.items[0]?.phase).toBe('failed'));
    expect(result.current.items[0]?.error).toBe('You do not have permission to do this.');
    expect(forbidden).toBe(1);
  });

  it('keeps a failed upload, its file and its key, through the end of the page: Retry then sends it once', async () => {
    let down = true;
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${platformUrl}/v2/core/assets`, ({ request }) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return down
          ? HttpResponse.json({}, { status: 503 })
          : HttpResponse.json({ asset: specAsset({ id: 77, name: 'kept.pdf' }) }, { status: 201 });
      }),
    );
    const useSlot = () =>
      useUploads({
        entity: { type: 'Product', id: 7 },
        fileType: 'pitch_deck',
        onUploaded: () => undefined,
        onForbidden: () => undefined,
      });
    const first = renderHookWith(useSlot);
    const chosen = new File(['%PDF kept'], 'kept.pdf');
    act(() => void first.result.current.start(chosen, { private: false, meta: {} }));
    await waitFor(() => expect(first.result.current.items[0]?.phase).toBe('failed'));
    // The page ends (a sign-in after the session ended, or a reload) and the slot is drawn again.
    first.unmount();
    const again = renderHookWith(useSlot);
    await waitFor(() => expect(again.result.current.items).toHaveLength(1));
    const restored = again.result.current.items[0]!;
    expect(restored).toMatchObject({ phase: 'failed', retryable: true });
    // The file itself, not only its name: nothing to choose again.
    expect(restored.file).toBe(chosen);

    down = false;
    act(() => again.result.current.retry(restored.id));
    await waitFor(() => expect(again.result.current.finished).toBe(1));
    // One key for both attempts: the platform makes one file at most.
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    // Sent: nothing is kept any more.
    again.unmount();
    const later = renderHookWith(useSlot);
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(later.result.current.items).toEqual([]);
  });
});

describe('resumable uploads refused at creation', () => {
  for (const [status, code, words] of [
    [403, 'forbidden', 'You do not have permission to do this.'],
    [404, 'not_found', 'This was not found, or you do not have access to it.'],
    [413, 'payload_too_large', 'deck.pdf is too large for this slot.'],
    [
      415,
      'unsupported_media_type',
      'deck.pdf is not a kind of file this slot takes: upload a PDF, image, Office document, CSV or text file.',
    ],
    [422, 'validation_failed', 'name: is too long'],
  ] as const) {
    it(`a ${status} from the tus creation reads as the spec's POST's, and no byte is sent`, async () => {
      const tus = tusPlatform({
        refuseCreation: {
          status,
          body: { type: 'about:blank', title: 'Refused', status, code, detail: 'name: is too long' },
        },
      });
      server.use(...tus.handlers);
      const { result } = renderHookWith(
        () =>
          useUploads({
            entity: { type: 'Product', id: 7 },
            fileType: 'pitch_deck',
            onUploaded: () => undefined,
            onForbidden: () => undefined,
          }),
        testServices(testConfig({ resumableUploads: true })),
      );
      const big = new File([new Uint8Array(resumableFromBytes)], 'deck.pdf', { type: 'application/pdf' });
      act(() => void result.current.start(big, { private: false, meta: {} }));
      await waitFor(() => expect(result.current.items[0]?.phase).toBe('failed'));
      expect(result.current.items[0]).toMatchObject({ error: words, retryable: false, resumable: true });
      expect(tus.log).toEqual(['POST']);
    });
  }
});

describe('pausing resumable uploads', () => {
  it('a waiting upload paused says so at once, and Resume sends it in its turn', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    tus.holdPatches();
    const { result } = renderHookWith(
      () =>
        useUploads({
          entity: { type: 'Product', id: 7 },
          fileType: 'charter_document',
          onUploaded: () => undefined,
          onForbidden: () => undefined,
        }),
      testServices(testConfig({ resumableUploads: true })),
    );
    const big = (name: string) =>
      new File([new Uint8Array(resumableFromBytes)], name, { type: 'application/pdf' });
    act(() => {
      for (const name of ['a.pdf', 'b.pdf', 'c.pdf', 'd.pdf'])
        result.current.start(big(name), { private: false, meta: {} });
    });
    // Three in flight (their bytes held by the platform), the fourth waiting its turn.
    await waitFor(() => expect(tus.log.filter((l) => l.endsWith('cut'))).toHaveLength(3));
    const waiting = result.current.items[3]!;
    expect(waiting.phase).toBe('waiting');

    act(() => result.current.pause(waiting.id));
    await waitFor(() => expect(result.current.items[3]?.phase).toBe('paused'));
    expect(tus.log.filter((l) => l === 'POST')).toHaveLength(3);

    tus.release();
    await waitFor(() => expect(result.current.finished).toBe(3));
    act(() => result.current.resume(waiting.id));
    await waitFor(() => expect(result.current.finished).toBe(4));
    expect(tus.log.filter((l) => l === 'POST')).toHaveLength(4);
  });

  it('offline, stops trying and says so; back online, continues from the last byte by itself', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    tus.cutNextPatch(1_000_000);
    const { result } = renderHookWith(
      () =>
        useUploads({
          entity: { type: 'Product', id: 7 },
          fileType: 'pitch_deck',
          onUploaded: () => undefined,
          onForbidden: () => undefined,
        }),
      testServices(testConfig({ resumableUploads: true })),
    );
    const big = new File([new Uint8Array(resumableFromBytes)], 'deck.pdf', { type: 'application/pdf' });
    act(() => void result.current.start(big, { private: false, meta: {} }));
    await waitFor(() => expect(result.current.items[0]?.phase).toBe('failed'));
    expect(result.current.items[0]).toMatchObject({
      error: 'You are offline. The upload continues by itself when you are back online.',
      waitsForConnection: true,
      retryable: true,
    });
    // No attempt after the lost one while offline.
    expect(tus.log).toEqual(['POST', 'PATCH 0 +1000000 cut']);

    online.mockReturnValue(true);
    act(() => void window.dispatchEvent(new Event('online')));
    await waitFor(() => expect(result.current.finished).toBe(1));
    expect(tus.log.slice(2)).toEqual(['HEAD', `PATCH 1000000 +${resumableFromBytes - 1_000_000}`]);
    online.mockRestore();
  });
});
