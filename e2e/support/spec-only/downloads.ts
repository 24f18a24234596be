import { createHmac, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import type { AssetStore, StoredAsset } from './asset-store';
import { isObject } from './asset-upload';
import { HttpError } from './http';
import { sameSecret } from './oauth-store';

/** Spec 4.5 says the URL is time-limited without saying how long: five minutes, as signed URLs often are. */
const downloadUrlLifetimeSeconds = 300;

export type Variant = 'preview' | 'cropped';
export interface Rendition {
  variant: Variant;
  width: number | undefined;
}

/** Signed download URLs (spec 4.5) and the route that serves them, with no bearer token needed. */
export class Downloads {
  private readonly secret = randomBytes(32);

  constructor(
    private readonly baseUrl: () => string,
    private readonly clock: () => number,
  ) {}

  url(asset: StoredAsset, rendition: Rendition | undefined): string {
    const expires = String(Math.floor(this.clock() / 1000) + downloadUrlLifetimeSeconds);
    const params = new URLSearchParams({ expires });
    if (rendition) params.set('variant', rendition.variant);
    if (rendition?.width) params.set('width', String(rendition.width));
    params.set('signature', this.sign(asset.id, params));
    return `${this.baseUrl()}/downloads/${asset.id}?${params}`;
  }

  routes(app: FastifyInstance, assets: AssetStore) {
    app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
      '/downloads/:id',
      async (request, reply) => {
        const { signature = '', ...query } = request.query;
        const params = new URLSearchParams(query);
        const id = Number(request.params.id);
        if (!sameSecret(signature, this.sign(id, params)) || !(Number(query.expires) * 1000 > this.clock())) {
          throw new HttpError(403, 'This download link is invalid or has expired');
        }
        const asset = assets.get(id);
        if (!asset) throw new HttpError(404, 'Not found');
        reply.header('x-content-type-options', 'nosniff');
        if (query.variant === 'preview' || query.variant === 'cropped') {
          const width = query.width ? Number(query.width) : undefined;
          return reply.type('image/webp').send(await render(asset, { variant: query.variant, width }));
        }
        const { size } = await stat(asset.filePath);
        return reply
          .type(asset.contentType)
          .header('content-length', size)
          .send(createReadStream(asset.filePath));
      },
    );
  }

  /** Covers the asset id and every other parameter of the URL, in the order they were issued. */
  private sign(id: number, params: URLSearchParams): string {
    const signed = new URLSearchParams(params);
    signed.delete('signature');
    return createHmac('sha256', this.secret).update(`${id}?${signed}`).digest('base64url');
  }
}

/**
 * Our app's renditions (not in the spec): `preview` is the whole image, `cropped` is `meta.crop`
 * ({x, y, width, height} in pixels of the upright image) cut out after EXIF rotation; both resized to
 * `width` when given (never enlarged) and encoded as WebP.
 */
async function render(asset: StoredAsset, { variant, width }: Rendition): Promise<Buffer> {
  try {
    const { autoOrient: upright } = await sharp(asset.filePath).metadata();
    let image = sharp(asset.filePath).autoOrient();
    const crop = variant === 'cropped' ? cropWithin(asset.meta.crop, upright) : undefined;
    if (crop) image = image.extract(crop);
    if (width) image = image.resize({ width, withoutEnlargement: true });
    return await image.webp().toBuffer();
  } catch {
    throw new HttpError(422, 'No image rendition can be made of this file');
  }
}

/**
 * meta is free-form, so a crop may be missing, hold strings (multipart) or reach outside the image:
 * numbers are read leniently and the area is clipped to the image; nothing usable means no crop.
 */
function cropWithin(crop: unknown, image: { width: number; height: number }) {
  if (!isObject(crop)) return undefined;
  const [x, y, width, height] = [crop.x, crop.y, crop.width, crop.height].map((v) => Math.round(Number(v)));
  if (![x, y, width, height].every((v) => Number.isFinite(v))) return undefined;
  const left = Math.max(0, x!);
  const top = Math.max(0, y!);
  const right = Math.min(image.width, x! + width!);
  const bottom = Math.min(image.height, y! + height!);
  if (right <= left || bottom <= top) return undefined;
  return { left, top, width: right - left, height: bottom - top };
}
