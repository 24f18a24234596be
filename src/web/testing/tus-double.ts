import { http, HttpResponse } from 'msw';
import { resumableUploadsPath, tusVersion } from '../../shared/api/resumable-uploads';
import { platformUrl, specAsset } from './platform-double';

/** One upload as the double holds it: what was declared at creation and how many bytes arrived. */
export interface TusUpload {
  id: string;
  length: number;
  offset: number;
  metadata: Record<string, string>;
  deleted: boolean;
}

/**
 * The least of tus 1.0 the app needs, in MSW (src/shared/api/resumable-uploads.ts): POST creates
 * (201, `Location`), HEAD tells the offset, PATCH appends from it (409 on a wrong one) and answers
 * `200 {"asset": …}` with the last byte, GET answers that asset again, DELETE gives up. Every request
 * is logged ("PATCH 0 +5242880") so a test can say what crossed the wire.
 *
 * `cutNextPatch(bytes)`: the next PATCH keeps only its first `bytes` and its connection drops.
 * `holdPatches()`: PATCHes keep their first half and wait until `release()`, as a slow upload
 * does, so a test can pause one midway.
 */
export function tusPlatform(
  options: {
    /** The asset made when the last byte arrives. */
    asset?: (upload: TusUpload) => Record<string, unknown>;
    /** The final PATCH answers 204 without the asset, as if its answer had been lost. */
    loseFinalAnswer?: boolean;
    /** A creation refused, as the platform refuses bad metadata (problem JSON). */
    refuseCreation?: { status: number; body: Record<string, unknown> };
  } = {},
) {
  const uploads = new Map<string, TusUpload>();
  const log: string[] = [];
  const tokens: string[] = [];
  let cut: number | undefined;
  let held: { release: () => void; promise: Promise<void> } | undefined;
  let received = 0;
  let count = 0;
  const base = `${platformUrl}${resumableUploadsPath}`;
  const tus = { 'Tus-Resumable': tusVersion };
  const assetOf = (upload: TusUpload) =>
    options.asset?.(upload) ??
    specAsset({
      id: 500 + Number(upload.id.replace(/\D/g, '')),
      name: upload.metadata.name,
      file_type: upload.metadata.file_type,
      assetable: { type: upload.metadata.assetable_type, id: Number(upload.metadata.assetable_id) },
      private: upload.metadata.private === 'true',
    });
  const find = (id: string) => {
    const upload = uploads.get(id);
    return upload && !upload.deleted ? upload : undefined;
  };

  const handlers = [
    http.post(base, ({ request }) => {
      tokens.push(request.headers.get('Authorization') ?? '');
      log.push('POST');
      if (options.refuseCreation)
        return HttpResponse.json(options.refuseCreation.body, {
          status: options.refuseCreation.status,
          headers: { 'Content-Type': 'application/problem+json' },
        });
      const metadata = Object.fromEntries(
        (request.headers.get('Upload-Metadata') ?? '')
          .split(',')
          .filter(Boolean)
          .map((pair) => {
            const [key, value = ''] = pair.trim().split(' ');
            return [key!, new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)))];
          }),
      );
      count += 1;
      const upload: TusUpload = {
        id: `u${count}`,
        length: Number(request.headers.get('Upload-Length')),
        offset: 0,
        metadata,
        deleted: false,
      };
      uploads.set(upload.id, upload);
      return new HttpResponse(null, { status: 201, headers: { ...tus, Location: `${base}/${upload.id}` } });
    }),
    http.head(`${base}/:id`, ({ params, request }) => {
      tokens.push(request.headers.get('Authorization') ?? '');
      log.push('HEAD');
      const upload = find(String(params.id));
      if (!upload) return new HttpResponse(null, { status: 404, headers: tus });
      return new HttpResponse(null, {
        status: 200,
        headers: {
          ...tus,
          'Upload-Offset': String(upload.offset),
          'Upload-Length': String(upload.length),
          'Cache-Control': 'no-store',
        },
      });
    }),
    http.patch(`${base}/:id`, async ({ params, request }) => {
      tokens.push(request.headers.get('Authorization') ?? '');
      const upload = find(String(params.id));
      const offset = Number(request.headers.get('Upload-Offset'));
      if (!upload) return new HttpResponse(null, { status: 404, headers: tus });
      if (offset !== upload.offset) {
        log.push(`PATCH ${offset} refused`);
        return new HttpResponse(null, { status: 409, headers: tus });
      }
      const bytes = (await request.arrayBuffer()).byteLength;
      if (cut !== undefined || held) {
        const kept = cut ?? Math.floor(bytes / 2);
        cut = undefined;
        upload.offset += kept;
        received += kept;
        log.push(`PATCH ${offset} +${kept} cut`);
        if (held) await held.promise;
        return HttpResponse.error();
      }
      upload.offset += bytes;
      received += bytes;
      log.push(`PATCH ${offset} +${bytes}`);
      const headers = { ...tus, 'Upload-Offset': String(upload.offset) };
      if (upload.offset < upload.length || options.loseFinalAnswer)
        return new HttpResponse(null, { status: 204, headers });
      return HttpResponse.json({ asset: assetOf(upload) }, { status: 200, headers });
    }),
    http.get(`${base}/:id`, ({ params }) => {
      log.push('GET');
      const upload = find(String(params.id));
      if (!upload) return HttpResponse.json({}, { status: 404 });
      if (upload.offset < upload.length)
        return HttpResponse.json(
          { title: 'Not complete', status: 409, code: 'upload_incomplete' },
          { status: 409 },
        );
      return HttpResponse.json({ asset: assetOf(upload) });
    }),
    http.delete(`${base}/:id`, ({ params }) => {
      log.push('DELETE');
      const upload = find(String(params.id));
      if (!upload) return new HttpResponse(null, { status: 404, headers: tus });
      upload.deleted = true;
      return new HttpResponse(null, { status: 204, headers: tus });
    }),
  ];

  return {
    handlers,
    uploads,
    log,
    tokens,
    /** Bytes the double kept, across every PATCH: what a resumed upload must not send twice. */
    received: () => received,
    cutNextPatch: (bytes: number) => {
      cut = bytes;
    },
    holdPatches: () => {
      let release = () => undefined as void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = { release, promise };
    },
    release: () => {
      held?.release();
      held = undefined;
    },
  };
}
