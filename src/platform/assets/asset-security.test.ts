import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { problemSchema } from '../../shared/api/problem';
import {
  alteredSignature,
  csv,
  jpeg,
  multipartBody,
  pdf,
  png,
  sha256,
  type UploadFile,
} from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState, uploadsUnderWay } from '../testing/storage-state';

let platform: TestPlatform;
let issuer: string;
let investor: string;
let otherInvestor: string;
let otherIssuer: string;
let admin: string;

beforeAll(async () => {
  // U12 sends fifty uploads at once from one user: more than the per-user cap (H8) lets through.
  platform = await startPlatform({ MAX_UPLOAD_BYTES: String(5 * 1024 * 1024), UPLOADS_PER_USER: '50' });
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  // A second investor with an accreditation, and a second issuer with a product.
  const { openDatabase } = await import('../db/database');
  const { createUser } = await import('../security/accounts');
  const db = await openDatabase(platform.config);
  const inv2 = await createUser(db, {
    email: 'investor2@demo.test',
    role: 'investor',
    password: 'demo-password',
  });
  await db
    .insertInto('accreditations')
    .values({ owner_id: inv2.id, name: 'Second', status: 'pending', created_at: Date.now() })
    .execute();
  const iss2 = await createUser(db, {
    email: 'issuer2@demo.test',
    role: 'issuer',
    password: 'demo-password',
  });
  await db
    .insertInto('products')
    .values({ owner_id: iss2.id, name: 'Other product', created_at: Date.now() })
    .execute();
  await db.destroy();
  otherInvestor = (await tokensFor(platform, 'investor2@demo.test')).access_token;
  otherIssuer = (await tokensFor(platform, 'issuer2@demo.test')).access_token;
});
afterAll(() => platform.close());

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(token), ...(init.headers as Record<string, string>) },
  });

const upload = (token: string, fields: Record<string, string>, file?: UploadFile) =>
  api('/v2/core/assets', token, { method: 'POST', body: multipartBody(fields, file) });

const logoFields = { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' };

async function expectProblem(response: Response, status: number, code?: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const problem = problemSchema.parse(JSON.parse(text));
  if (code) expect(problem.code).toBe(code);
  return problem;
}

/** "Nothing kept": no new row, no new file, no temporary file. */
let before: Awaited<ReturnType<typeof storageState>>;
beforeEach(async () => {
  before = await storageState(platform.config);
});
async function expectNothingKept() {
  const after = await storageState(platform.config);
  expect(after.rows).toBe(before.rows);
  expect(after.files).toBe(before.files);
  expect(after.temporary).toBe(0);
}

async function createAsset(token: string, fields: Record<string, string>, file: UploadFile): Promise<Asset> {
  const response = await upload(token, fields, file);
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

describe('B3 who may read and change an asset', () => {
  it("hides another investor's accreditation documents and lets admins read private ones", async () => {
    const letter = await createAsset(
      investor,
      { file_type: 'letter_of_accreditation', assetable_type: 'Accreditation', assetable_id: '1' },
      { name: 'letter.pdf', bytes: await pdf() },
    );
    await expectProblem(await api(`/v2/core/assets/${letter.id}`, otherInvestor), 404, 'not_found');
    await expectProblem(
      await api(`/v2/core/assets/${letter.id}/download_url`, otherInvestor),
      404,
      'not_found',
    );
    await expectProblem(await api('/v2/core/accreditations/1', otherInvestor), 404);
    expect((await api(`/v2/core/assets/${letter.id}`, admin)).status).toBe(200);
    expect((await api(`/v2/core/assets/${letter.id}`, issuer)).status).toBe(404);
  });

  it("refuses an issuer changing another issuer's product asset (visible: 403) and admins writing (403)", async () => {
    const logo = await createAsset(issuer, logoFields, { name: 'logo.png', bytes: await png() });
    expect((await api(`/v2/core/assets/${logo.id}`, otherIssuer)).status).toBe(200);
    const put = (token: string) =>
      api(`/v2/core/assets/${logo.id}`, token, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"asset":{"name":"Mine now"}}',
      });
    await expectProblem(await put(otherIssuer), 403, 'forbidden');
    await expectProblem(await put(admin), 403, 'forbidden');
    await expectProblem(
      await api(`/v2/core/assets/${logo.id}`, otherIssuer, { method: 'DELETE' }),
      403,
      'forbidden',
    );
  });

  it('hides private assets of someone else, even offering material', async () => {
    const secret = await createAsset(
      issuer,
      { ...logoFields, private: 'true' },
      { name: 'draft.png', bytes: await png() },
    );
    await expectProblem(await api(`/v2/core/assets/${secret.id}`, investor), 404);
    await expectProblem(await api(`/v2/core/assets/${secret.id}`, otherIssuer), 404);
    const product = (await (await api('/v2/core/products/1', investor)).json()) as { assets: Asset[] };
    expect(product.assets.map((a) => a.id)).not.toContain(secret.id);
    expect((await api(`/v2/core/assets/${secret.id}`, issuer)).status).toBe(200);
  });

  it('limits a basic token to the non-private assets of entities its user owns', async () => {
    const basic = (await tokensFor(platform, 'issuer@demo.test', 'basic')).access_token;
    const open = await createAsset(issuer, logoFields, { name: 'open.png', bytes: await png() });
    const hidden = await createAsset(
      issuer,
      { ...logoFields, private: 'true' },
      { name: 'hidden.png', bytes: await png() },
    );
    expect((await api(`/v2/core/assets/${open.id}`, basic)).status).toBe(200);
    expect((await api(`/v2/core/assets/${hidden.id}`, basic)).status).toBe(404);
    const basicInvestor = (await tokensFor(platform, 'investor@demo.test', 'basic')).access_token;
    expect((await api(`/v2/core/assets/${open.id}`, basicInvestor)).status).toBe(404);
  });
});

describe('B4 download URLs that must not work', () => {
  it('refuses an altered signature, id, variant or expiry, and a deleted asset', async () => {
    const logo = await createAsset(issuer, logoFields, { name: 'logo.png', bytes: await png() });
    const other = await createAsset(issuer, logoFields, { name: 'other.png', bytes: await png() });
    const { url } = (await (await api(`/v2/core/assets/${logo.id}/download_url`, issuer)).json()) as {
      url: string;
    };
    expect((await fetch(url)).status).toBe(200);
    const altered = (change: (u: URL) => void) => {
      const u = new URL(url);
      change(u);
      return fetch(u);
    };
    expect(
      (
        await altered((u) =>
          u.searchParams.set('signature', alteredSignature(u.searchParams.get('signature')!)),
        )
      ).status,
    ).toBe(403);
    expect(
      (await altered((u) => (u.pathname = u.pathname.replace(String(logo.id), String(other.id))))).status,
    ).toBe(403);
    expect((await altered((u) => u.searchParams.set('variant', 'preview'))).status).toBe(403);
    expect(
      (
        await altered((u) =>
          u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
        )
      ).status,
    ).toBe(403);
    expect((await altered((u) => u.searchParams.delete('signature'))).status).toBeGreaterThanOrEqual(400);
    await api(`/v2/core/assets/${logo.id}`, issuer, { method: 'DELETE' });
    expect([403, 404]).toContain((await fetch(url)).status);
  });
});

describe('U1 file types', () => {
  it('refuses a file type not in the catalog, or not for the assetable type, naming the field', async () => {
    const p1 = await expectProblem(
      await upload(issuer, { ...logoFields, file_type: 'selfie' }, { name: 'a.png', bytes: await png() }),
      422,
      'validation_failed',
    );
    expect(p1.errors?.[0]?.field).toBe('file_type');
    const p2 = await expectProblem(
      await upload(
        investor,
        { file_type: 'logo', assetable_type: 'Accreditation', assetable_id: '1' },
        { name: 'a.png', bytes: await png() },
      ),
      422,
    );
    expect(p2.errors?.[0]?.field).toBe('file_type');
    await expectNothingKept();
  });
});

describe('U2 assetables', () => {
  it('answers 404 for one that does not exist or is hidden, 403 for one visible but not yours', async () => {
    await expectProblem(
      await upload(issuer, { ...logoFields, assetable_id: '999' }, { name: 'a.png', bytes: await png() }),
      404,
    );
    await expectProblem(
      await upload(
        investor,
        { file_type: 'drivers_license', assetable_type: 'Accreditation', assetable_id: '2' },
        { name: 'a.jpg', bytes: await jpeg() },
      ),
      404,
    );
    await expectProblem(await upload(otherIssuer, logoFields, { name: 'a.png', bytes: await png() }), 403);
    await expectNothingKept();
  });
});

describe('U3 missing parts', () => {
  it('answers 422 for a missing file, an empty file, or a missing required field', async () => {
    expect((await expectProblem(await upload(issuer, logoFields), 422)).errors?.[0]?.field).toBe('file');
    expect(
      (
        await expectProblem(
          await upload(issuer, logoFields, { name: 'empty.png', bytes: new Uint8Array() }),
          422,
        )
      ).errors?.[0]?.field,
    ).toBe('file');
    const { assetable_id: _omit, ...withoutId } = logoFields;
    const problem = await expectProblem(
      await upload(issuer, withoutId, { name: 'a.png', bytes: await png() }),
      422,
    );
    expect(problem.errors?.map((e) => e.field)).toContain('assetable_id');
    await expectNothingKept();
  });
});

describe('U4 bytes that do not match the declared kind', () => {
  it.each([
    [
      'HTML named .png',
      'logo',
      { name: 'logo.png', bytes: Buffer.from('<!doctype html><script>alert(1)</script>'), type: 'image/png' },
    ],
    [
      'a shell script named .png',
      'logo',
      { name: 'run.png', bytes: Buffer.from('#!/bin/sh\nrm -rf /\n'), type: 'image/png' },
    ],
    [
      'an SVG with a script',
      'logo',
      {
        name: 'x.svg',
        bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        type: 'image/svg+xml',
      },
    ],
    [
      'an HTML page as a pitch deck',
      'pitch_deck',
      { name: 'deck.pdf', bytes: Buffer.from('<html><body>hi</body></html>'), type: 'application/pdf' },
    ],
    [
      'an executable as a pitch deck',
      'pitch_deck',
      {
        name: 'deck.pdf',
        bytes: Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00'), Buffer.alloc(200)]),
        type: 'application/pdf',
      },
    ],
  ])('refuses %s with 415', async (_label, fileType, file) => {
    await expectProblem(
      await upload(issuer, { ...logoFields, file_type: fileType }, file),
      415,
      'unsupported_content',
    );
    await expectNothingKept();
  });
  it('refuses a PDF uploaded as a logo with 415', async () => {
    await expectProblem(
      await upload(issuer, logoFields, { name: 'logo.png', bytes: await pdf(), type: 'image/png' }),
      415,
    );
    await expectNothingKept();
  });
});

describe('U5 a file over the size limit', () => {
  it('answers 413 and cuts the upload off instead of reading it to the end', async () => {
    // 40 MB offered against a 25 MB image limit (and a 5 MB platform limit): count what the server pulls.
    const total = 40 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 1);
    const boundary = 'x-boundary';
    const head = Buffer.from(
      [
        ...Object.entries(logoFields).map(
          ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
        ),
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
      ].join(''),
    );
    let sent = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${platform.url}/v2/core/assets`, {
        method: 'POST',
        headers: {
          ...bearer(issuer),
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + total),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (error) => (sent < total ? undefined : reject(error)));
      req.write(head);
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(total);
    // The temporary file may go just after the answer.
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    await expectNothingKept();
  });
});

/** A PNG that claims 30000×30000 pixels: its header is all a decoder needs to read to refuse it. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([length, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('U6 a decompression bomb', () => {
  it('refuses a 30000×30000 image without decoding it', async () => {
    const bomb = pngHeaderOnly(30000, 30000);
    const started = Date.now();
    await expectProblem(
      await upload(issuer, logoFields, { name: 'bomb.png', bytes: bomb }),
      413,
      'image_too_large',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    await expectNothingKept();
  });
});

describe('U7 a client that disconnects halfway', () => {
  it('keeps nothing', async () => {
    const boundary = 'b';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\nfinancial_document\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="assetable_type"\r\n\r\nInvestment\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="assetable_id"\r\n\r\n1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.csv"\r\n\r\n`,
    );
    const req = httpRequest(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: {
        ...bearer(issuer),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 1_000_000),
      },
    });
    req.on('error', () => {});
    req.write(head);
    req.write(Buffer.alloc(300_000, 'a'));
    // Gone once the platform is writing the file, three tenths of the way through.
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(1);
    req.destroy();
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    await expectNothingKept();
  });
});

describe('U8 hostile file names', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['a\u0000b.csv', 'ab.csv'],
    ['line\u0007bell.csv', 'linebell.csv'],
    ['invoice\u202Efdp.csv', 'invoicefdp.csv'],
  ])('stores %j as a sanitized name, never in the key', async (fileName, expected) => {
    const asset = await createAsset(
      issuer,
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: fileName, bytes: csv() },
    );
    expect(asset.name).toBe(expected);
    expect(asset.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
  it('cuts a 10 000-character name to 255', async () => {
    const asset = await createAsset(
      issuer,
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: `${'n'.repeat(10_000)}.csv`, bytes: csv() },
    );
    expect(asset.name.length).toBe(255);
  });
  it('refuses an explicit name with control or override characters', async () => {
    await expectProblem(
      await upload(
        issuer,
        { ...logoFields, name: 'evil\u202Egnp.exe' },
        { name: 'a.png', bytes: await png() },
      ),
      422,
    );
    await expectNothingKept();
  });
});

describe('U9 meta and crop', () => {
  it.each([
    ['not an object', '[1,2]'],
    ['not JSON', '{oops'],
    ['too large', JSON.stringify({ blob: 'x'.repeat(17 * 1024) })],
    ['too deep', JSON.stringify(JSON.parse(`${'{"a":'.repeat(12)}1${'}'.repeat(12)}`))],
    ['crop outside the image', JSON.stringify({ crop: { x: 60, y: 0, width: 10, height: 10 } })],
    ['negative crop', JSON.stringify({ crop: { x: -1, y: 0, width: 10, height: 10 } })],
    ['fractional crop', JSON.stringify({ crop: { x: 1.5, y: 0, width: 10, height: 10 } })],
  ])('answers 422 for meta %s', async (_label, meta) => {
    const problem = await expectProblem(
      await upload(issuer, { ...logoFields, meta }, { name: 'a.png', bytes: await png(64, 48) }),
      422,
    );
    expect(problem.errors?.[0]?.field).toMatch(/^meta/);
    await expectNothingKept();
  });
  it('names meta.crop on update too', async () => {
    const logo = await createAsset(issuer, logoFields, { name: 'a.png', bytes: await png(64, 48) });
    const response = await api(`/v2/core/assets/${logo.id}`, issuer, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { meta: { crop: { x: 0, y: 0, width: 65, height: 48 } } } }),
    });
    expect((await expectProblem(response, 422)).errors?.[0]?.field).toBe('meta.crop');
  });
});

describe('bodies of the wrong kind', () => {
  it('refuses a multipart update (only uploads take multipart) with 415 and changes nothing', async () => {
    const logo = await createAsset(issuer, logoFields, { name: 'kept.png', bytes: await png(64, 48) });
    const form = new FormData();
    form.append('name', 'changed.png');
    const response = await api(`/v2/core/assets/${logo.id}`, issuer, { method: 'PUT', body: form });
    await expectProblem(response, 415, 'unsupported_media_type');
    const read = await api(`/v2/core/assets/${logo.id}`, issuer);
    expect(assetEnvelopeSchema.parse(await read.json()).asset.name).toBe('kept.png');
  });
});

describe('U10 names', () => {
  it.each([
    ['empty', ''],
    ['256 characters', 'n'.repeat(256)],
    ['only spaces', '    '],
  ])('answers 422 for a name %s', async (_label, name) => {
    const problem = await expectProblem(
      await upload(issuer, { ...logoFields, name }, { name: 'a.png', bytes: await png() }),
      422,
    );
    expect(problem.errors?.[0]?.field).toBe('name');
    await expectNothingKept();
  });
});

describe('U11 ids that are not positive integers', () => {
  it.each(['-1', '0', '1e3', 'abc', '18446744073709551616', '1.5'])(
    'answers 404 for asset id %s',
    async (id) => {
      const response = await api(`/v2/core/assets/${id}`, issuer);
      expect([400, 404]).toContain(response.status);
      expect((await api(`/v2/core/products/${id}`, issuer)).status).toBeLessThan(500);
    },
  );
  it.each(['-1', '0', '1e3', 'abc', '18446744073709551616'])(
    'answers 422 for assetable_id %s',
    async (id) => {
      await expectProblem(
        await upload(issuer, { ...logoFields, assetable_id: id }, { name: 'a.png', bytes: await png() }),
        422,
      );
      await expectNothingKept();
    },
  );
});

describe('U12 fifty concurrent uploads and reads', () => {
  it('all succeed and every file reads back identical', async () => {
    const files = await Promise.all(
      Array.from({ length: 50 }, (_, i) => png(20 + i, 20, { r: i * 5, g: 100, b: 200 - i })),
    );
    const assets = await Promise.all(
      files.map((bytes, i) =>
        createAsset(issuer, { ...logoFields, name: `logo ${i}` }, { name: `l${i}.png`, bytes }),
      ),
    );
    const read = await Promise.all(
      assets.map(async (asset) => {
        const { url } = (await (await api(`/v2/core/assets/${asset.id}/download_url`, issuer)).json()) as {
          url: string;
        };
        return sha256(new Uint8Array(await (await fetch(url)).arrayBuffer()));
      }),
    );
    expect(read).toEqual(files.map((f) => sha256(f)));
  }, 60_000);
});
