import { parse as parseDisposition } from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { multipartBody, png } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';

/** File delivery by signed URL (/files/assets/:id): names, validity, conditional and range requests. */

let platform: TestPlatform;
let issuer: string;

beforeAll(async () => {
  platform = await startPlatform();
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(() => platform.close());

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(issuer), ...(init.headers as Record<string, string>) },
  });

const logoFields = { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' };
const documentFields = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };

async function upload(fields: Record<string, string>, name: string, bytes: Uint8Array): Promise<Asset> {
  const response = await api('/v2/core/assets', {
    method: 'POST',
    body: multipartBody(fields, { name, bytes }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

async function signedUrl(asset: Pick<Asset, 'id'>, query = '') {
  const response = await api(`/v2/core/assets/${asset.id}/download_url${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

const update = (asset: Asset, changes: Record<string, unknown>) =>
  api(`/v2/core/assets/${asset.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ asset: changes }),
  });

/** The header parsed as a browser would: the exact name (filename* wins over the fallback). */
function deliveredName(response: Response) {
  const header = response.headers.get('content-disposition');
  expect(header).toBeTruthy();
  return parseDisposition(header!);
}

/**
 * RFC 6266 with RFC 8187: a fallback of printable ASCII in a quoted string, and `filename*` only of
 * attr-chars and percent escapes (no `'`, `(`, `)`, `*`, which encodeURIComponent leaves alone).
 */
const standardDisposition =
  /^(inline|attachment); filename=("([\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)(; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~-]|%[0-9A-F]{2})+)?$/;

const html = '<html><body><script>alert(document.domain)</script></body></html>\n';

describe('H1 delivered names agree with the sniffed type', () => {
  it('H1 delivers a text file with HTML in it, uploaded as numbers.html, as numbers.txt', async () => {
    const asset = await upload(documentFields, 'numbers.html', Buffer.from(`year,revenue\n${html}`));
    expect(asset.content_type).toBe('text/plain');
    // The stored name is what the user gave; only the delivered one is made to agree.
    expect(asset.name).toBe('numbers.html');
    const file = await fetch(await signedUrl(asset));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain');
    expect(file.headers.get('content-disposition')).toMatch(standardDisposition);
    expect(deliveredName(file)).toEqual({ type: 'attachment', parameters: { filename: 'numbers.txt' } });
  });

  it('H1 delivers a PNG/HTML polyglot named .html as .png, and its renditions as .webp', async () => {
    const polyglot = Buffer.concat([await png(40, 30), Buffer.from(html)]);
    const asset = await upload(logoFields, 'polyglot.html', polyglot);
    expect(asset.content_type).toBe('image/png');
    const original = await fetch(await signedUrl(asset));
    expect(original.headers.get('content-type')).toBe('image/png');
    expect(deliveredName(original).parameters.filename).toBe('polyglot.png');
    for (const query of ['?variant=preview&width=160', '?variant=cropped']) {
      const rendition = await fetch(await signedUrl(asset, query));
      expect(rendition.headers.get('content-type')).toBe('image/webp');
      expect(deliveredName(rendition).parameters.filename).toBe('polyglot.webp');
    }
  });

  it.each([
    ['an extension of another type', 'report.pdf', 'report.txt'],
    ['no extension', 'report', 'report.txt'],
    ['the right extension in capitals', 'NOTES.TXT', 'NOTES.TXT'],
    ['a trailing dot', 'notes.', 'notes..txt'],
    ['a dot file', '.html', '.html.txt'],
  ])('H1 gives a text file with %s the right one (%s → %s)', async (_label, name, expected) => {
    const asset = await upload(documentFields, name, Buffer.from('plain words\n'));
    const file = await fetch(await signedUrl(asset));
    expect(deliveredName(file).parameters.filename).toBe(expected);
  });

  it.each([
    ['quotes', 'Q1 "numbers".txt'],
    ["' ( ) *", "it's (final) *draft*.txt"],
    ['non-ASCII', 'Ünïcødé 報告 €.txt'],
    ['a backslash and a percent sign', 'a\\b 100%.txt'],
    ['semicolons and commas', 'a; b, c=d.txt'],
  ])('H1 writes a standard Content-Disposition for a name with %s', async (_label, name) => {
    const asset = await upload({ ...documentFields, name }, 'upload.txt', Buffer.from('plain words\n'));
    expect(asset.name).toBe(name);
    const file = await fetch(await signedUrl(asset));
    const header = file.headers.get('content-disposition')!;
    expect(header).toMatch(standardDisposition);
    expect(deliveredName(file)).toEqual({
      type: 'attachment',
      parameters: expect.objectContaining({ filename: name }) as Record<string, string>,
    });
    // The ASCII fallback keeps the extension, for the clients that read only it.
    expect(parseDisposition(header, { extended: false }).parameters.filename).toMatch(/\.txt$/);
  });
});

describe('H2 a download URL ends when the asset changes what it may show', () => {
  it('H2 ends every earlier URL of an asset made private, and hands out working new ones', async () => {
    const asset = await upload(logoFields, 'logo.png', await png());
    const original = await signedUrl(asset);
    const preview = await signedUrl(asset, '?variant=preview');
    expect((await fetch(original)).status).toBe(200);
    expect((await fetch(preview)).status).toBe(200);
    expect((await update(asset, { private: true })).status).toBe(200);
    expect((await fetch(original)).status).toBe(403);
    expect((await fetch(preview)).status).toBe(403);
    expect((await fetch(await signedUrl(asset))).status).toBe(200);
  });

  it('H2 ends earlier URLs when a private asset is made public again too', async () => {
    const asset = await upload({ ...logoFields, private: 'true' }, 'logo.png', await png());
    const url = await signedUrl(asset);
    expect((await update(asset, { private: false })).status).toBe(200);
    expect((await fetch(url)).status).toBe(403);
  });

  it("H2 ends earlier cropped URLs when the crop changes, but not the original's or the preview's", async () => {
    const asset = await upload(
      { ...logoFields, meta: JSON.stringify({ crop: { x: 0, y: 0, width: 20, height: 20 } }) },
      'logo.png',
      await png(64, 48),
    );
    const cropped = await signedUrl(asset, '?variant=cropped');
    const croppedSmall = await signedUrl(asset, '?variant=cropped&width=160');
    const original = await signedUrl(asset);
    const preview = await signedUrl(asset, '?variant=preview');
    expect((await fetch(cropped)).status).toBe(200);
    expect((await update(asset, { meta: { crop: { x: 10, y: 10, width: 20, height: 20 } } })).status).toBe(
      200,
    );
    expect((await fetch(cropped)).status).toBe(403);
    expect((await fetch(croppedSmall)).status).toBe(403);
    expect((await fetch(original)).status).toBe(200);
    expect((await fetch(preview)).status).toBe(200);
    expect((await fetch(await signedUrl(asset, '?variant=cropped'))).status).toBe(200);
  });

  it('H2 keeps cropped URLs when the meta changes but the crop does not', async () => {
    const crop = { x: 0, y: 0, width: 20, height: 20 };
    const asset = await upload({ ...logoFields, meta: JSON.stringify({ crop }) }, 'logo.png', await png());
    const cropped = await signedUrl(asset, '?variant=cropped');
    expect((await update(asset, { meta: { crop, caption: 'Our logo' } })).status).toBe(200);
    expect((await fetch(cropped)).status).toBe(200);
  });

  it('H2 ends every earlier URL of a deleted asset with the answer a forged URL gets', async () => {
    const asset = await upload(logoFields, 'logo.png', await png());
    const urls = [await signedUrl(asset), await signedUrl(asset, '?variant=preview&width=160')];
    expect((await api(`/v2/core/assets/${asset.id}`, { method: 'DELETE' })).status).toBe(204);
    for (const url of urls) {
      const response = await fetch(url);
      expect(response.status).toBe(403);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_signature');
    }
  });

  it('H2 keeps URLs working through a rename (the decision: a name is not access), sending the new name', async () => {
    const asset = await upload(logoFields, 'before.png', await png());
    const original = await signedUrl(asset);
    const preview = await signedUrl(asset, '?variant=preview');
    expect((await update(asset, { name: 'after.png' })).status).toBe(200);
    const file = await fetch(original);
    expect(file.status).toBe(200);
    expect(deliveredName(file).parameters.filename).toBe('after.png');
    expect((await fetch(preview)).status).toBe(200);
  });
});

describe('disposition=attachment: a URL that saves the file', () => {
  it('delivers an image or a PDF as an attachment under its safe name, and the plain URL still inline', async () => {
    const image = await upload(logoFields, 'logo.png', await png(40, 30));
    const inline = await fetch(await signedUrl(image));
    expect(deliveredName(inline)).toEqual({ type: 'inline', parameters: { filename: 'logo.png' } });
    const saved = await fetch(await signedUrl(image, '?disposition=attachment'));
    expect(saved.status).toBe(200);
    expect(saved.headers.get('content-type')).toBe('image/png');
    expect(saved.headers.get('content-disposition')).toMatch(standardDisposition);
    expect(deliveredName(saved)).toEqual({ type: 'attachment', parameters: { filename: 'logo.png' } });
    expect(Buffer.from(await saved.arrayBuffer()).equals(await png(40, 30))).toBe(true);
  });

  it('keeps the sniffed name: a text file called fake.pdf is saved as fake.txt', async () => {
    const asset = await upload(documentFields, 'fake.pdf', Buffer.from('plain words\n'));
    const saved = await fetch(await signedUrl(asset, '?disposition=attachment'));
    expect(deliveredName(saved)).toEqual({ type: 'attachment', parameters: { filename: 'fake.txt' } });
  });

  it('is signed: added to or taken from a URL, the URL stops working', async () => {
    const image = await upload(logoFields, 'signed.png', await png());
    const plain = await signedUrl(image);
    const added = new URL(plain);
    added.searchParams.set('disposition', 'attachment');
    expect((await fetch(added)).status).toBe(403);
    const attachment = new URL(await signedUrl(image, '?disposition=attachment'));
    attachment.searchParams.delete('disposition');
    expect((await fetch(attachment)).status).toBe(403);
  });

  it('answers 422 naming the field for another disposition', async () => {
    const image = await upload(logoFields, 'other.png', await png());
    const response = await api(`/v2/core/assets/${image.id}/download_url?disposition=inline`);
    expect(response.status).toBe(422);
    expect(JSON.stringify(await response.json())).toContain('disposition');
  });
});

describe('H4 no existence oracle at /files/assets/:id', () => {
  it('H4 answers a bad signature alike for an asset that exists and one that does not', async () => {
    const document = await upload(documentFields, 'notes.txt', Buffer.from('plain words\n'));
    const missing = document.id + 100_000;
    const expires = Math.floor(Date.now() / 1000) + 300;
    const queries = [
      `variant=original&expires=${expires}&signature=AAAA`,
      `variant=preview&width=160&expires=${expires}&signature=AAAA`,
      // Would be a 422 for a text file if anything were checked before the signature.
      `variant=cropped&width=99999&expires=${expires}&signature=AAAA`,
      `variant=original&expires=1&signature=AAAA`,
    ];
    for (const query of queries) {
      const [present, absent] = await Promise.all([
        fetch(`${platform.url}/files/assets/${document.id}?${query}`),
        fetch(`${platform.url}/files/assets/${missing}?${query}`),
      ]);
      expect(present.status, query).toBe(absent.status);
      expect(present.status, query).toBe(403);
      expect(present.headers.get('content-type')).toBe(absent.headers.get('content-type'));
      expect(await present.text()).toBe(await absent.text());
    }
  });
});

describe('conditional and range requests', () => {
  const text = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz\n');
  let url: string;
  let etag: string;
  beforeAll(async () => {
    const asset = await upload(documentFields, 'alphabet.txt', text);
    url = await signedUrl(asset);
    const first = await fetch(url);
    etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
  });

  it('answers If-None-Match with the current ETag with 304 and no body, for GET and HEAD', async () => {
    for (const method of ['GET', 'HEAD']) {
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const response = await fetch(url, { method, headers: { 'if-none-match': ifNoneMatch } });
        expect(response.status, `${method} ${ifNoneMatch}`).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(response.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
        expect(await response.text()).toBe('');
      }
    }
    const changed = await fetch(url, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    expect(Buffer.from(await changed.arrayBuffer())).toEqual(text);
  });

  it('honours If-Range: the current ETag gets the range, an old one or a date the whole file', async () => {
    const current = await fetch(url, { headers: { range: 'bytes=0-3', 'if-range': etag } });
    expect(current.status).toBe(206);
    expect(await current.text()).toBe('0123');
    for (const ifRange of ['"an old version"', `W/${etag}`, 'Tue, 01 Jan 2030 00:00:00 GMT']) {
      const old = await fetch(url, { headers: { range: 'bytes=0-3', 'if-range': ifRange } });
      expect(old.status, ifRange).toBe(200);
      expect(old.headers.get('content-range')).toBeNull();
      expect(Buffer.from(await old.arrayBuffer())).toEqual(text);
    }
  });

  it('answers ranges as RFC 9110 says: one range 206, several 200 whole, none satisfiable 416', async () => {
    const cases: [string, number, string | null, string][] = [
      ['bytes=0-3', 206, `bytes 0-3/${text.length}`, '0123'],
      ['bytes=-4', 206, `bytes ${text.length - 4}-${text.length - 1}/${text.length}`, 'xyz\n'],
      ['bytes=34-', 206, `bytes 34-${text.length - 1}/${text.length}`, 'yz\n'],
      ['bytes=30-1000', 206, `bytes 30-${text.length - 1}/${text.length}`, 'uvwxyz\n'],
      // Overlapping and adjacent ranges are one range.
      ['bytes=0-3,2-5', 206, `bytes 0-5/${text.length}`, '012345'],
      ['bytes=0-1,2-3', 206, `bytes 0-3/${text.length}`, '0123'],
      // Ranges a client can ask for but this server need not serve in parts: the whole file.
      ['bytes=0-1,5-6', 200, null, text.toString()],
      // Not a valid range, or another unit: ignored.
      ['bytes=abc', 200, null, text.toString()],
      ['items=0-3', 200, null, text.toString()],
    ];
    for (const [range, status, contentRange, body] of cases) {
      const response = await fetch(url, { headers: { range } });
      expect(response.status, range).toBe(status);
      expect(response.headers.get('content-range'), range).toBe(contentRange);
      expect(await response.text(), range).toBe(body);
    }
    for (const range of [
      `bytes=${text.length}-`,
      `bytes=${text.length + 10}-${text.length + 20}`,
      'bytes=-0',
    ]) {
      const response = await fetch(url, { headers: { range } });
      expect(response.status, range).toBe(416);
      expect(response.headers.get('content-range'), range).toBe(`bytes */${text.length}`);
    }
  });

  it("lets the web app's pages read a download URL in ranges (its PDF viewer), and no other site", async () => {
    const appOrigin = 'http://127.0.0.1:5173'; // WEB_PUBLIC_URL's default
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: appOrigin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'range',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/\bRange\b/);
    const ranged = await fetch(url, { headers: { origin: appOrigin, range: 'bytes=0-3' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('access-control-allow-origin')).toBe(appOrigin);
    const exposed = ranged.headers.get('access-control-expose-headers') ?? '';
    for (const header of ['Accept-Ranges', 'Content-Range', 'Content-Length'])
      expect(exposed).toContain(header);
    const foreign = await fetch(url, { headers: { origin: 'https://elsewhere.example' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(text.length));
    expect(head.headers.get('etag')).toBe(etag);
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(await head.text()).toBe('');
    const range = await fetch(url, { method: 'HEAD', headers: { range: 'bytes=0-3' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-length')).toBe('4');
  });

  it('answers If-None-Match for renditions without rendering anything new', async () => {
    const asset = await upload(logoFields, 'logo.png', await png(400, 300));
    const preview = await signedUrl(asset, '?variant=preview&width=160');
    const first = await fetch(preview);
    const previewTag = first.headers.get('etag')!;
    const again = await fetch(preview, { headers: { 'if-none-match': previewTag } });
    expect(again.status).toBe(304);
    const range = await fetch(preview, { headers: { range: 'bytes=0-3', 'if-range': previewTag } });
    expect(range.status).toBe(206);
    expect(await range.text()).toBe('RIFF');
  });
});

describe('OpenAPI', () => {
  it('documents /files/assets/{id}: its query and its answers', async () => {
    const doc = (await (await fetch(`${platform.url}/v2/core/openapi.json`)).json()) as {
      paths: Record<
        string,
        { get?: { parameters: { name: string; in: string }[]; responses: Record<string, unknown> } }
      >;
    };
    const route = doc.paths['/files/assets/{id}']?.get;
    expect(route).toBeDefined();
    expect(
      route!.parameters
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['disposition', 'expires', 'signature', 'variant', 'width']);
    expect(Object.keys(route!.responses).sort()).toEqual([
      '200',
      '206',
      // With S3_DELIVERY=redirect.
      '302',
      '304',
      '403',
      '404',
      '409',
      '416',
      '422',
    ]);
  });
});
