import { describe, expect, it } from 'vitest';
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
import { SessionEnded } from './errors';
import type { NewFile } from './model';

const server = platformDouble();

const createUrl = `${platformUrl}/v2/core/assets`;

interface Received {
  authorization: string | null;
  idempotencyKey: string | null;
  fields: [string, string][];
}

/** The platform's create endpoint, answering with `answer(received)` and recording every attempt. */
function acceptUploads(answer: (received: Received) => Response) {
  const received: Received[] = [];
  server.use(
    http.post(createUrl, async ({ request }) => {
      const form = await request.formData();
      const entry: Received = {
        authorization: request.headers.get('authorization'),
        idempotencyKey: request.headers.get('idempotency-key'),
        // The file part by its size: jsdom's XMLHttpRequest hands MSW the part without its file name
        // (a browser sends it; the end-to-end tests read the name the platform stored).
        fields: [...form.entries()].map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `file of ${value.size} bytes`,
        ]),
      };
      received.push(entry);
      return answer(entry);
    }),
  );
  return received;
}

const licence = (): NewFile => ({
  fileType: 'drivers_license',
  entity: { type: 'Accreditation', id: 3 },
  private: true,
  meta: { crop: { x: 10, y: 20, width: 300, height: 200 } },
  file: new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'licence.jpg', { type: 'image/jpeg' }),
});

const options = () => ({
  idempotencyKey: 'key-1',
  onProgress: () => undefined,
  signal: new AbortController().signal,
});
const created = (fields: Record<string, unknown> = {}) =>
  HttpResponse.json(
    {
      asset: specAsset({
        id: 21,
        file_type: 'drivers_license',
        assetable: { type: 'Accreditation', id: 3 },
        ...fields,
      }),
    },
    { status: 201 },
  );

describe('the create request (spec 4.3)', () => {
  it('sends flat fields before the file, with meta as bracketed fields', async () => {
    const received = acceptUploads(() => created({ private: true }));
    await platformFor(testConfig()).platform.upload(licence(), options());
    expect(received[0]!.fields).toEqual([
      ['file_type', 'drivers_license'],
      ['assetable_type', 'Accreditation'],
      ['assetable_id', '3'],
      ['name', 'licence.jpg'],
      ['private', 'true'],
      ['meta[crop][x]', '10'],
      ['meta[crop][y]', '20'],
      ['meta[crop][width]', '300'],
      ['meta[crop][height]', '200'],
      ['file', 'file of 4 bytes'],
    ]);
  });

  it('C4: sends Idempotency-Key only where the platform’s CORS allows it (or the proxy forwards)', async () => {
    const received = acceptUploads(() => created({ private: true }));
    await platformFor(testConfig({ idempotencyKey: true })).platform.upload(licence(), options());
    await platformFor(testConfig({ idempotencyKey: false })).platform.upload(licence(), options());
    await platformFor(testConfig({ idempotencyKey: null })).platform.upload(licence(), options());
    expect(received.map((r) => r.idempotencyKey)).toEqual(['key-1', null, null]);
  });
});

describe('H13: an upload refused with 401', () => {
  it('renews the session once and sends once more with the new token, never the old one again', async () => {
    const received = acceptUploads(({ authorization }) =>
      authorization === 'Bearer token-2'
        ? created({ private: true })
        : new HttpResponse(null, { status: 401 }),
    );
    const tokens = tokenSource('token-1', ['token-2']);
    const { file } = await platformFor(testConfig(), tokens).platform.upload(licence(), options());
    expect(file.id).toBe(21);
    expect(tokens.renewals).toBe(1);
    expect(received.map((r) => r.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('stops after the one retry when the new token is refused too, and the session ends', async () => {
    const received = acceptUploads(() => new HttpResponse(null, { status: 401 }));
    const built = platformFor(testConfig(), tokenSource('token-1', ['token-2', 'token-3']));
    await expect(built.platform.upload(licence(), options())).rejects.toBeInstanceOf(SessionEnded);
    expect(received).toHaveLength(2);
    expect(built.sessionEnded()).toBe(1);
  });

  it('does not send the file a second time when the session cannot be renewed', async () => {
    const received = acceptUploads(() => new HttpResponse(null, { status: 401 }));
    await expect(
      platformFor(testConfig(), tokenSource('token-1', [null])).platform.upload(licence(), options()),
    ).rejects.toBeInstanceOf(SessionEnded);
    expect(received).toHaveLength(1);
  });
});

describe('C3: a file that must be private, on a platform that ignores private at create', () => {
  it('is made private at once with the spec’s own update', async () => {
    acceptUploads(() => created({ private: false }));
    let updateBody: unknown;
    server.use(
      http.put(`${platformUrl}/v2/core/assets/21`, async ({ request }) => {
        updateBody = await request.json();
        return new HttpResponse(null, { status: 204 });
      }),
      http.get(`${platformUrl}/v2/core/assets/21`, () =>
        HttpResponse.json({
          asset: specAsset({ id: 21, private: true, assetable: { type: 'Accreditation', id: 3 } }),
        }),
      ),
    );
    const uploaded = await platformFor(testConfig()).platform.upload(licence(), options());
    expect(updateBody).toEqual({ asset: { private: true } });
    expect(uploaded).toMatchObject({ file: { id: 21, private: true }, privacyNotApplied: false });
  });

  it('says so when making it private fails, so the card can warn and offer to try again', async () => {
    acceptUploads(() => created({ private: false }));
    server.use(http.put(`${platformUrl}/v2/core/assets/21`, () => new HttpResponse(null, { status: 500 })));
    const uploaded = await platformFor(testConfig()).platform.upload(licence(), options());
    expect(uploaded).toMatchObject({ file: { id: 21, private: false }, privacyNotApplied: true });
  });

  it('asks nothing more of a platform that made it private at create', async () => {
    acceptUploads(() => created({ private: true }));
    const uploaded = await platformFor(testConfig()).platform.upload(licence(), options());
    expect(uploaded.privacyNotApplied).toBe(false);
  });
});
