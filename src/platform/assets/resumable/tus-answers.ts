import type { ServerResponse } from 'node:http';
import { type ApiError, problemOf } from '../../http/errors';

/**
 * The answers given from inside @tus/server (its hooks return them; it writes them): ours in JSON
 * or problem+json, and its own refusals rewritten into problem+json.
 */

/** An answer a tus hook returns: `body` as JSON, never stored by a cache. */
export const tusJsonAnswer = (status: number, body: unknown, contentType = 'application/json') => ({
  status_code: status,
  headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' },
  body: JSON.stringify(body),
});

/** An error of ours as a tus hook's answer, in the API's problem+json. */
export const tusProblemAnswer = (error: ApiError) =>
  tusJsonAnswer(
    error.status,
    problemOf({ status: error.status, code: error.code, detail: error.message, errors: error.errors }),
    'application/problem+json',
  );

/**
 * @tus/server's own refusals (a wrong offset, a size passed, a lock held, a missing header) in the
 * API's problem+json, as every other error of ours: the same `code`, `detail` and `status`, whether
 * our checks or the library's said no. Its words become the detail.
 */
const tusCodes: Record<number, string> = {
  400: 'malformed_request',
  403: 'malformed_request',
  404: 'not_found',
  409: 'offset_mismatch',
  410: 'upload_expired',
  412: 'unsupported_tus_version',
  413: 'payload_too_large',
  423: 'upload_locked',
  460: 'checksum_mismatch',
};
export function tusRefusalAsProblem(error: { status_code: number; body: string }) {
  const status = error.status_code;
  const code = tusCodes[status] ?? (status >= 500 ? 'internal_error' : 'malformed_request');
  const detail =
    status >= 500
      ? 'Something went wrong on our side.'
      : status === 423
        ? 'This upload is being written by another request; ask HEAD for its offset and continue in a moment.'
        : error.body.trim();
  return { status_code: status, body: JSON.stringify(problemOf({ status, code, detail })) };
}

/**
 * tus writes its refusals with a text/plain type of its own, which `onResponseError` cannot change:
 * from here on, when `isRefusal()` says tus is answering one, the response's content type is
 * problem+json (its body is tusRefusalAsProblem's).
 */
export function writeRefusalsAsProblemJson(response: ServerResponse, isRefusal: () => boolean) {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = ((...args: unknown[]) =>
    writeHead(...(isRefusal() ? args.map(asProblemJson) : args))) as typeof response.writeHead;
}

/** A `writeHead` argument with its content type made problem+json (headers as srvx passes them). */
function asProblemJson(arg: unknown): unknown {
  if (!Array.isArray(arg)) return arg;
  const isType = (name: unknown) => String(name).toLowerCase() === 'content-type';
  if (arg.every((entry) => Array.isArray(entry)))
    return [
      ...(arg as unknown[][]).filter(([name]) => !isType(name)),
      ['content-type', 'application/problem+json'],
    ];
  const flat: unknown[] = [];
  for (let i = 0; i < arg.length; i += 2) if (!isType(arg[i])) flat.push(arg[i], arg[i + 1]);
  return [...flat, 'content-type', 'application/problem+json'];
}
