import { describe, expect, it } from 'vitest';
import { resumableFromBytes } from '../../../shared/api/resumable-uploads';
import {
  http,
  HttpResponse,
  platformDouble,
  platformFor,
  platformUrl,
  specAsset,
  testConfig,
  tokenSource,
} from '../../testing/platform-double';
import { tusPlatform } from '../../testing/tus-double';
import { unfinishedUploads } from '../unfinished-uploads';
import { ApiError } from './errors';
import { pauseReason, type NewFile, type UploadOptions } from './model';

const server = platformDouble();

const product = { type: 'Product' as const, id: 7 };
const size = resumableFromBytes + 1000;

/** A pitch deck just over the size from which the app sends resumably; the same bytes each time. */
const bigDeck = (name = 'deck.pdf') =>
  new File([new Uint8Array(size).fill(7)], name, {
    type: 'application/pdf',
    lastModified: 1_700_000_000_000,
  });

const newFile = (file = bigDeck(), meta: Record<string, unknown> = {}): NewFile => ({
  fileType: 'pitch_deck',
  entity: product,
  private: false,
  meta,
  file,
});

function optionsWith(controller = new AbortController()) {
  const progress: [number, number][] = [];
  const seen = { reconnecting: 0, resumeId: undefined as string | undefined };
  const options: UploadOptions = {
    idempotencyKey: 'key-1',
    signal: controller.signal,
    onProgress: (sent, total) => progress.push([sent, total]),
    onReconnecting: () => (seen.reconnecting += 1),
    onResumable: (id) => (seen.resumeId = id),
  };
  return { options, progress, seen, controller };
}

/** A platform whose proxy found the tus endpoint. */
const resumablePlatform = (tokens = tokenSource()) =>
  platformFor(testConfig({ resumableUploads: true }), tokens).platform;

/** Fails the test if the spec's create is called. */
function noPlainPost() {
  server.use(
    http.post(`${platformUrl}/v2/core/assets`, () => {
      throw new Error('The spec’s POST was used for a resumable upload.');
    }),
  );
}

describe('resumable uploads (tus), where the platform offers them', () => {
  it('sends a large file as a tus upload: the metadata at creation, the bytes, the asset from the last PATCH', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    noPlainPost();
    const { options, progress, seen } = optionsWith();
    const platform = resumablePlatform();

    const uploaded = await platform.upload(newFile(bigDeck(), { note: 'v2' }), options);

    expect(uploaded.file).toMatchObject({ id: 501, name: 'deck.pdf', fileType: 'pitch_deck' });
    expect(tus.log).toEqual(['POST', `PATCH 0 +${size}`]);
    expect(tus.uploads.get('u1')!.metadata).toEqual({
      file_type: 'pitch_deck',
      assetable_type: 'Product',
      assetable_id: '7',
      name: 'deck.pdf',
      meta: '{"note":"v2"}',
      private: 'false',
      content_type: 'application/pdf',
    });
    expect(tus.tokens.every((t) => t === 'Bearer token-1')).toBe(true);
    expect(progress.at(-1)).toEqual([size, size]);
    expect(seen.resumeId).toBe(`${platformUrl}/v2/core/uploads/u1`);
    // Finished: nothing is left to continue after a reload.
    expect(await unfinishedUploads.findAllUploads()).toEqual([]);
  });

  it('a dropped connection resumes by itself from the last byte received, never sending a byte twice', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    const { options, seen } = optionsWith();
    tus.cutNextPatch(2_000_000);

    const uploaded = await resumablePlatform().upload(newFile(), options);

    expect(uploaded.file.id).toBe(501);
    expect(tus.log).toEqual(['POST', 'PATCH 0 +2000000 cut', 'HEAD', `PATCH 2000000 +${size - 2_000_000}`]);
    expect(tus.received()).toBe(size);
    expect(seen.reconnecting).toBe(1);
  });

  it('when the last answer is lost, reads the asset from the upload (GET)', async () => {
    const tus = tusPlatform({ loseFinalAnswer: true });
    server.use(...tus.handlers);

    const uploaded = await resumablePlatform().upload(newFile(), optionsWith().options);

    expect(uploaded.file.id).toBe(501);
    expect(tus.log).toEqual(['POST', `PATCH 0 +${size}`, 'GET']);
  });

  it('pause keeps what arrived; the same file sent again continues from there, and is then forgotten', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    const platform = resumablePlatform();
    tus.holdPatches();
    const first = optionsWith();
    const sending = platform.upload(newFile(), first.options);
    await expect.poll(() => tus.log).toContain(`PATCH 0 +${Math.floor(size / 2)} cut`);
    first.controller.abort(pauseReason);
    await expect(sending).rejects.toMatchObject({ name: 'AbortError' });
    tus.release();
    // Nothing given up: the upload stays at the platform, and this browser remembers it.
    expect(tus.log).not.toContain('DELETE');
    expect(await platform.unfinishedUploads(product, 'pitch_deck')).toMatchObject([
      { name: 'deck.pdf', size, sent: Math.floor(size / 2) },
    ]);

    const second = optionsWith();
    const uploaded = await platform.upload(newFile(), second.options);

    expect(uploaded.file.id).toBe(501);
    expect(tus.log.slice(-2)).toEqual([
      'HEAD',
      `PATCH ${Math.floor(size / 2)} +${size - Math.floor(size / 2)}`,
    ]);
    expect(tus.received()).toBe(size);
    // The bar starts where the platform is, not at zero.
    expect(second.progress[0]![0]).toBeGreaterThanOrEqual(Math.floor(size / 2));
    expect(await platform.unfinishedUploads(product, 'pitch_deck')).toEqual([]);
  });

  it('lists a slot’s unfinished uploads with what the platform holds, drops expired ones, and discards with DELETE', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    const platform = resumablePlatform();
    tus.holdPatches();
    for (const name of ['one.pdf', 'two.pdf']) {
      const { options, controller } = optionsWith();
      const sending = platform.upload(newFile(bigDeck(name)), options);
      await expect
        .poll(() => tus.log.filter((l) => l.endsWith('cut')).length)
        .toBe(name === 'one.pdf' ? 1 : 2);
      controller.abort(pauseReason);
      await sending.catch(() => undefined);
    }
    tus.release();

    const listed = await platform.unfinishedUploads(product, 'pitch_deck');
    expect(listed.map((u) => u.name).sort()).toEqual(['one.pdf', 'two.pdf']);
    // Another slot, another entity: none of theirs.
    expect(await platform.unfinishedUploads(product, 'business_plan')).toEqual([]);
    expect(await platform.unfinishedUploads({ type: 'Product', id: 8 }, 'pitch_deck')).toEqual([]);

    // One expires at the platform: it is no longer listed, nor remembered.
    tus.uploads.get('u1')!.deleted = true;
    const [left] = await platform.unfinishedUploads(product, 'pitch_deck');
    expect(left).toMatchObject({ name: 'two.pdf' });
    expect(await unfinishedUploads.findAllUploads()).toHaveLength(1);

    await platform.discardUpload(left!.id);
    expect(tus.log.at(-1)).toBe('DELETE');
    expect(tus.uploads.get('u2')!.deleted).toBe(true);
    expect(await platform.unfinishedUploads(product, 'pitch_deck')).toEqual([]);
  });

  it('the same file with another crop is another upload: the earlier one is given up', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    const platform = resumablePlatform();
    tus.holdPatches();
    const first = optionsWith();
    const sending = platform.upload(
      newFile(bigDeck(), { crop: { x: 0, y: 0, width: 10, height: 10 } }),
      first.options,
    );
    await expect.poll(() => tus.log.some((l) => l.endsWith('cut'))).toBe(true);
    first.controller.abort(pauseReason);
    await sending.catch(() => undefined);
    tus.release();

    await platform.upload(
      newFile(bigDeck(), { crop: { x: 5, y: 5, width: 10, height: 10 } }),
      optionsWith().options,
    );

    expect(tus.uploads.get('u1')!.deleted).toBe(true);
    expect(tus.uploads.get('u2')!.metadata.meta).toBe('{"crop":{"x":5,"y":5,"width":10,"height":10}}');
  });

  it('cancel gives the upload up at the platform (DELETE)', async () => {
    const tus = tusPlatform();
    server.use(...tus.handlers);
    tus.holdPatches();
    const { options, controller } = optionsWith();
    const sending = resumablePlatform().upload(newFile(), options);
    await expect.poll(() => tus.log.some((l) => l.endsWith('cut'))).toBe(true);
    controller.abort();
    await expect(sending).rejects.toMatchObject({ name: 'AbortError' });
    tus.release();
    await expect.poll(() => tus.log).toContain('DELETE');
    expect(await unfinishedUploads.findAllUploads()).toEqual([]);
  });

  it('a creation refused with problem JSON fails as the spec’s POST would, before any byte', async () => {
    const tus = tusPlatform({
      refuseCreation: {
        status: 415,
        body: {
          type: 'about:blank',
          title: 'Unsupported',
          status: 415,
          code: 'unsupported_media_type',
          detail: 'Not for this slot',
        },
      },
    });
    server.use(...tus.handlers);

    const failure = await resumablePlatform()
      .upload(newFile(), optionsWith().options)
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(tus.log).toEqual(['POST']);
  });

  it('a refused token is renewed once and the request sent again, as other calls do', async () => {
    const tus = tusPlatform();
    let refused = false;
    server.use(
      http.post(`${platformUrl}/v2/core/uploads`, () => {
        if (refused) return undefined;
        refused = true;
        return HttpResponse.json({}, { status: 401 });
      }),
      ...tus.handlers,
    );
    const tokens = tokenSource('token-1', ['token-2']);

    const uploaded = await resumablePlatform(tokens).upload(newFile(), optionsWith().options);

    expect(uploaded.file.id).toBe(501);
    expect(tokens.renewals).toBe(1);
    expect(tus.tokens).toEqual(['Bearer token-2', 'Bearer token-2']);
  });
});

describe('the spec’s POST, unchanged', () => {
  for (const [case_, capabilities, bytes] of [
    ['a platform without tus (not known)', {}, size],
    ['a platform known to lack it', { resumableUploads: false }, size],
    ['a small file, even where tus is offered', { resumableUploads: true }, 1000],
  ] as const) {
    it(`${case_}: POST /v2/core/assets, no tus request`, async () => {
      const seen: string[] = [];
      server.use(
        http.all(`${platformUrl}/v2/core/uploads*`, ({ request }) => {
          seen.push(`${request.method} uploads`);
          return HttpResponse.json({}, { status: 500 });
        }),
        http.post(`${platformUrl}/v2/core/assets`, () => {
          seen.push('POST assets');
          return HttpResponse.json(
            { asset: specAsset({ id: 31, file_type: 'pitch_deck' }) },
            { status: 201 },
          );
        }),
      );
      const { platform } = platformFor(testConfig(capabilities));
      const file = new File([new Uint8Array(bytes)], 'deck.pdf', { type: 'application/pdf' });

      expect(platform.resumes(file)).toBe(false);
      const uploaded = await platform.upload(newFile(file), optionsWith().options);

      expect(uploaded.file.id).toBe(31);
      expect(seen).toEqual(['POST assets']);
      expect(await platform.unfinishedUploads(product, 'pitch_deck')).toEqual([]);
    });
  }
});
