import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { problemSchema } from '../../shared/api/problem';
import { png } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState } from '../testing/storage-state';

let platform: TestPlatform;
let issuer: string;

beforeAll(async () => {
  platform = await startPlatform();
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(() => platform.close());

/** A multipart body written by hand, so that it can be wrong in exactly one way. */
const field = (boundary: string, name: string, value: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (boundary: string, name: string, fileName: string, bytes: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\n` +
  `Content-Type: text/csv\r\n\r\n${bytes}\r\n`;
const csvFields = (boundary: string) =>
  field(boundary, 'file_type', 'financial_document') +
  field(boundary, 'assetable_type', 'Investment') +
  field(boundary, 'assetable_id', '1');

const post = (contentType: string, body: string | FormData) =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: { ...bearer(issuer), ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });

async function expectProblem(response: Response, status: number) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(JSON.parse(text));
}

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

describe('H9 multipart bodies that cannot be read answer 4xx naming the fault', () => {
  const body = (b: string) => csvFields(b) + filePart(b, 'file', 'a.csv', 'a,b\n1,2\n') + `--${b}--\r\n`;

  it.each([
    ['no boundary', 'multipart/form-data'],
    ['an empty boundary', 'multipart/form-data; boundary='],
    ['an empty quoted boundary', 'multipart/form-data; boundary=""'],
  ])('answers 400 for %s', async (_label, contentType) => {
    const problem = await expectProblem(await post(contentType, body('x')), 400);
    expect(problem.detail).toMatch(/boundary/i);
    await expectNothingKept();
  });

  it('answers 400 for a body cut off before its closing boundary', async () => {
    const problem = await expectProblem(
      await post(
        'multipart/form-data; boundary=x',
        csvFields('x') + filePart('x', 'file', 'a.csv', 'a,b\n1,2\n'),
      ),
      400,
    );
    expect(problem.detail).toMatch(/multipart/i);
    expect(problem.detail).toMatch(/end/i);
    await expectNothingKept();
  });

  it('answers 400 for a body cut off in the middle of the file', async () => {
    const cut = `${csvFields('x')}--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\n1`;
    const problem = await expectProblem(await post('multipart/form-data; boundary=x', cut), 400);
    expect(problem.detail).toMatch(/multipart/i);
    await expectNothingKept();
  });

  it('answers 422 naming the field for two file parts, whatever the second is called', async () => {
    for (const second of ['file', 'other']) {
      const problem = await expectProblem(
        await post(
          'multipart/form-data; boundary=x',
          csvFields('x') +
            filePart('x', 'file', 'a.csv', 'a,b\n1,2\n') +
            filePart('x', second, 'b.csv', 'c,d\n3,4\n') +
            '--x--\r\n',
        ),
        422,
      );
      expect(problem.errors?.[0]?.field).toBe(second);
      expect(problem.detail).toMatch(/one file/);
    }
    await expectNothingKept();
  });
});

describe('U9 meta as bracketed multipart fields (meta[crop][x]), as form encoders send it', () => {
  const form = (fields: [string, string][], file: { name: string; bytes: Uint8Array; type: string }) => {
    const data = new FormData();
    for (const [name, value] of fields) data.append(name, value);
    data.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
    return data;
  };
  const logo = [
    ['file_type', 'logo'],
    ['assetable_type', 'Product'],
    ['assetable_id', '1'],
  ] as [string, string][];

  async function created(response: Response): Promise<Asset> {
    expect(response.status, await response.clone().text()).toBe(201);
    return assetEnvelopeSchema.parse(await response.json()).asset;
  }

  it('stores meta[crop][...] as integers and cuts the cropped rendition accordingly', async () => {
    // Left half red, right half blue: the crop takes a 30×20 piece of the blue half.
    const image = await sharp({ create: { width: 80, height: 40, channels: 3, background: '#e01e1e' } })
      .composite([
        {
          input: await sharp({ create: { width: 40, height: 40, channels: 3, background: '#1e3ce0' } })
            .png()
            .toBuffer(),
          left: 40,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    const asset = await created(
      await post(
        '',
        form(
          [
            ...logo,
            ['meta[crop][x]', '45'],
            ['meta[crop][y]', '10'],
            ['meta[crop][width]', '30'],
            ['meta[crop][height]', '20'],
            ['meta[alt]', 'Blue logo'],
            ['meta[rank]', '7'],
          ],
          { name: 'logo.png', bytes: image, type: 'image/png' },
        ),
      ),
    );
    // The crop's four keys are numbers; every other value stays the string that was sent.
    expect(asset.meta).toEqual({
      crop: { x: 45, y: 10, width: 30, height: 20 },
      alt: 'Blue logo',
      rank: '7',
    });

    const link = await fetch(`${platform.url}/v2/core/assets/${asset.id}/download_url?variant=cropped`, {
      headers: bearer(issuer),
    });
    expect(link.status).toBe(200);
    const { url } = (await link.json()) as { url: string };
    const rendition = Buffer.from(await (await fetch(url)).arrayBuffer());
    const { data, info } = await sharp(rendition).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([30, 20]);
    const [r, g, b] = [data[0]!, data[1]!, data[2]!];
    expect(b).toBeGreaterThan(180);
    expect(r).toBeLessThan(80);
    expect(g).toBeLessThan(100);
  });

  it('takes the same fields under the asset[...] wrapper', async () => {
    const asset = await created(
      await post(
        '',
        form(
          [
            ...logo.map(([k, v]) => [`asset[${k}]`, v] as [string, string]),
            ['asset[meta][crop][x]', '0'],
            ['asset[meta][crop][y]', '0'],
            ['asset[meta][crop][width]', '10'],
            ['asset[meta][crop][height]', '12'],
            ['asset[meta][caption][en]', 'Logo'],
          ],
          { name: 'logo.png', bytes: await png(64, 48), type: 'image/png' },
        ),
      ),
    );
    expect(asset.meta).toEqual({ crop: { x: 0, y: 0, width: 10, height: 12 }, caption: { en: 'Logo' } });
  });

  it.each([
    ['a crop value that is not a canonical integer', [['meta[crop][x]', '01']], 'meta.crop.x'],
    ['a fractional crop value', [['meta[crop][y]', '1.5']], 'meta.crop.y'],
    ['an exponent', [['meta[crop][width]', '1e1']], 'meta.crop.width'],
    ['a crop key that is not one', [['meta[crop][w]', '10']], 'meta.crop.w'],
  ])('answers 422 naming the field for %s', async (_label, change, fieldName) => {
    const crop: Record<string, string> = {
      'meta[crop][x]': '0',
      'meta[crop][y]': '0',
      'meta[crop][width]': '10',
      'meta[crop][height]': '10',
    };
    for (const [k, v] of change as [string, string][]) crop[k] = v;
    const problem = await expectProblem(
      await post(
        '',
        form([...logo, ...Object.entries(crop)], { name: 'a.png', bytes: await png(), type: 'image/png' }),
      ),
      422,
    );
    expect(problem.errors?.map((e) => e.field)).toContain(fieldName);
    await expectNothingKept();
  });

  it.each([
    [
      'a meta JSON field mixed with bracketed meta fields',
      [
        ['meta', '{"alt":"x"}'],
        ['meta[alt]', 'y'],
      ],
      'meta',
    ],
    [
      'a key that is both a value and an object',
      [
        ['meta[crop]', 'x'],
        ['meta[crop][x]', '1'],
      ],
      'meta.crop',
    ],
    [
      'an object key given as a value after its fields',
      [
        ['meta[crop][x]', '1'],
        ['meta[crop]', 'x'],
      ],
      'meta.crop',
    ],
    [
      'the same bracketed key twice',
      [
        ['meta[alt]', 'a'],
        ['meta[alt]', 'b'],
      ],
      'meta.alt',
    ],
    [
      'the same key flat and wrapped',
      [
        ['meta[alt]', 'a'],
        ['asset[meta][alt]', 'b'],
      ],
      'meta.alt',
    ],
    ['list brackets', [['meta[tags][]', 'a']], 'meta.tags'],
    ['an unclosed bracket', [['meta[crop', '1']], 'meta[crop'],
    ['nesting under a field other than meta', [['name[first]', 'a']], 'name'],
  ])('refuses %s with 422 rather than dropping anything', async (_label, extra, fieldName) => {
    const problem = await expectProblem(
      await post(
        '',
        form([...logo, ...(extra as [string, string][])], {
          name: 'a.png',
          bytes: await png(),
          type: 'image/png',
        }),
      ),
      422,
    );
    expect(problem.errors?.map((e) => e.field)).toContain(fieldName);
    await expectNothingKept();
  });

  it.each(['meta[__proto__][polluted]', 'asset[__proto__]'])(
    'refuses %s with 422 and pollutes nothing',
    async (name) => {
      const problem = await expectProblem(
        await post(
          '',
          form([...logo, [name, 'yes']], { name: 'a.png', bytes: await png(), type: 'image/png' }),
        ),
        422,
      );
      expect(problem.errors?.[0]?.field).toBe(name);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      await expectNothingKept();
    },
  );
});
