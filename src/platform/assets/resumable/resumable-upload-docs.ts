import { z } from 'zod';
import { assetEnvelopeSchema } from '../../../shared/assets/asset';
import { problems } from '../../http/route-schemas';

/**
 * The OpenAPI document's words for the tus requests (api.md); @tus/server answers them, so these
 * schemas describe and validate nothing but the `:id` parameter.
 */

const idParam = z.object({ id: z.string() });

const tusDoc = (summary: string, description: string, statuses: number[], extra = {}) => ({
  schema: {
    summary,
    description,
    tags: ['uploads'],
    ...extra,
    response: problems(...statuses),
  },
});

export const hiddenDoc = { schema: { hide: true } };

export const discoveryDoc = tusDoc(
  'tus discovery (resumable uploads)',
  'No token. Answers 204 with `Tus-Resumable: 1.0.0`, `Tus-Version`, `Tus-Extension` (creation, creation-with-upload, termination, expiration) and `Tus-Max-Size`; also the CORS preflight of tus requests.',
  [],
);

export const creationDoc = tusDoc(
  'Create a resumable upload (tus creation, creation-with-upload)',
  '`Upload-Length` and `Upload-Metadata` (base64 values: `file_type`, `assetable_type`, `assetable_id`, `name` or `filename`, `meta` as JSON, `private`, `content_type`), checked as `POST /v2/core/assets` checks its form, before any byte. 201 with a relative `Location` and `Upload-Expires`; with `Content-Type: application/offset+octet-stream` the body carries the first bytes.',
  [401, 403, 404, 413, 415, 422, 429],
  { security: [{ bearer: [] }] },
);

export const continuationDoc = tusDoc(
  'Continue, inspect or give up a resumable upload (tus HEAD, PATCH, DELETE)',
  '`HEAD`: `Upload-Offset` and `Upload-Length`. `PATCH` (`Content-Type: application/offset+octet-stream`, `Upload-Offset`): the bytes from there; 409 at another offset, 413 past `Upload-Length`, 423 while another request writes it. The `PATCH` with the last byte makes the asset as `POST /v2/core/assets` does and answers 200 `{"asset": …}` (415 and nothing kept when the bytes are of a type the slot does not take). `DELETE`: 204, the bytes go. Another user\'s upload is 404; an expired one 410.',
  [401, 404, 409, 410, 413, 415, 422, 423],
  { security: [{ bearer: [] }], params: idParam },
);

export const finishedAssetDoc = {
  schema: {
    summary: 'The asset a resumable upload made',
    description:
      'For a client whose final `PATCH` answer was lost: `{"asset": …}` once the last byte is in; 409 `upload_incomplete` before.',
    tags: ['uploads'],
    security: [{ bearer: [] }],
    params: idParam,
    response: {
      200: assetEnvelopeSchema,
      ...problems(401, 404, 409, 410),
    },
  },
};
