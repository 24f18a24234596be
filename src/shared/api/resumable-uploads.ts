/**
 * Resumable uploads: our extension, tus 1.0 (https://tus.io/protocols/resumable-upload) at
 * `/v2/core/uploads`. The platform, the proxy (which forwards it and probes for it) and the app
 * (which uses it for large files when offered) read this one description.
 *
 * - `OPTIONS /v2/core/uploads` answers `Tus-Resumable: 1.0.0`, `Tus-Version`, `Tus-Extension`
 *   (creation, creation-with-upload, termination, expiration) and `Tus-Max-Size`: that is the probe.
 * - `POST /v2/core/uploads` with `Upload-Length` and `Upload-Metadata` creates an upload. The
 *   metadata carries what `POST /v2/core/assets` takes, and is checked before any byte is sent,
 *   with the same answers (problem+json: 403, 404, 413, 415, 422).
 * - `PATCH` sends bytes from `Upload-Offset`; `HEAD` tells how many arrived; `DELETE` gives up.
 * - When the last byte arrives the asset is made exactly as `POST /v2/core/assets` makes it, and the
 *   final `PATCH` answers `200` with the spec's `{"asset": …}`. If that answer is lost, `GET` on the
 *   upload's URL answers the same asset (and 409 `upload_incomplete` while bytes are missing).
 * - An upload not finished within its expiry (`Upload-Expires`, 24 h by default) is swept.
 */
export const resumableUploadsPath = '/v2/core/uploads';

export const tusVersion = '1.0.0';

/** The `Upload-Metadata` keys (values base64, as tus encodes them). */
export const uploadMetadataKeys = {
  /** As `POST /v2/core/assets`. */
  fileType: 'file_type',
  assetableType: 'assetable_type',
  assetableId: 'assetable_id',
  /** The file's name as the user chose it; `filename` (what Uppy and tus-js-client examples send) is read too. */
  name: 'name',
  filenameAlias: 'filename',
  /** JSON text, as the `meta` form field. */
  meta: 'meta',
  /** `"true"` or `"false"`, as the `private` form field. */
  private: 'private',
  /** The declared media type, checked against the file type's list before any byte (415). */
  contentType: 'content_type',
} as const;

/** The app uses a resumable upload for files at least this large, when the platform offers one. */
export const resumableFromBytes = 5 * 1024 * 1024;
