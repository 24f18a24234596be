/**
 * Every failed platform call ends in one of these. The platform may answer RFC 9457 problem JSON (ours),
 * some other JSON, or nothing useful at all (a platform that implements only the spec shows no error
 * format): the status then decides the words. The client never shows anything itself: components
 * decide what to say and where.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: { field: string; message: string }[] = [],
    /** Whether `message` is the platform's own wording, fit to show as it is. */
    readonly fromPlatform = false,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static async fromResponse(response: Response): Promise<ApiError> {
    const body: unknown = await response.json().catch(() => undefined);
    const problem = body as Partial<{
      status: number;
      code: string;
      title: string;
      detail: string;
      errors: unknown;
    }>;
    if (typeof problem?.title === 'string' && typeof problem.code === 'string') {
      const fieldErrors = Array.isArray(problem.errors)
        ? (problem.errors as unknown[]).filter(isFieldError)
        : [];
      return new ApiError(response.status, problem.code, problem.detail ?? problem.title, fieldErrors, true);
    }
    const said = platformWords(body);
    return new ApiError(
      response.status,
      'http_error',
      said ?? wordsForStatus(response.status),
      [],
      said !== undefined,
    );
  }
}

/**
 * The platform lacks something the app would use (an endpoint beyond the spec). Never worded as the
 * person's fault or as a lack of permission (C1).
 */
export class NotOffered extends Error {
  constructor(readonly feature: string) {
    super(`This platform does not offer ${feature}.`);
    this.name = 'NotOffered';
  }
}

/**
 * The file exists but is still being made: a PDF's thumbnail, drawn after its upload was answered
 * (our platform answers 409 `thumbnail_pending` with `Retry-After`). Ask again after `retryAfterMs`.
 */
export class NotReadyYet extends Error {
  constructor(readonly retryAfterMs: number) {
    super('This preview is still being made.');
    this.name = 'NotReadyYet';
  }
}

/** The session ended and could not be renewed; the app asks the person to sign in again. */
export class SessionEnded extends Error {
  constructor() {
    super('Your session ended. Sign in again to continue.');
    this.name = 'SessionEnded';
  }
}

const isFieldError = (value: unknown): value is { field: string; message: string } =>
  typeof (value as { field?: unknown })?.field === 'string' &&
  typeof (value as { message?: unknown })?.message === 'string';

/** A message in one of the usual non-problem shapes: `{errors: ["…"]}`, `{error: "…"}`, `{message: "…"}`. */
function platformWords(body: unknown): string | undefined {
  const source = body as {
    errors?: unknown;
    error?: unknown;
    message?: unknown;
    error_description?: unknown;
  } | null;
  if (typeof source !== 'object' || source === null) return undefined;
  const candidates = [
    Array.isArray(source.errors) ? source.errors.filter((e) => typeof e === 'string').join(' ') : undefined,
    source.error_description,
    source.message,
    source.error,
  ];
  const words = candidates.find((c): c is string => typeof c === 'string' && c.trim().length > 0);
  // Bare codes ("invalid_grant") and long dumps are not words for people.
  if (!words || /^[a-z_]+$/.test(words) || words.length > 300) return undefined;
  return words.trim();
}

const notAnswering = 'The platform is not answering. Try again in a moment.';

/** Words for an answer that carried none the app can show. */
export function wordsForStatus(status: number): string {
  if (status === 400) return 'The platform could not accept this request.';
  if (status === 401) return 'Your session ended. Sign in again to continue.';
  if (status === 403) return 'You do not have permission to do this.';
  if (status === 404 || status === 410) return 'This was not found, or you do not have access to it.';
  if (status === 405 || status === 501) return 'This platform does not offer this.';
  if (status === 408) return 'The platform stopped waiting. Please try again.';
  if (status === 409) return 'This conflicts with another change on the platform. Reload and try again.';
  if (status === 412) return 'This file was changed elsewhere. Reload the page to see the latest version.';
  if (status === 413) return 'The file is too large for the platform.';
  if (status === 415) return 'The platform does not accept this kind of file.';
  if (status === 422) return 'The platform did not accept these details.';
  if (status === 429) return 'Too many requests. Wait a moment, then try again.';
  if (status === 502 || status === 504) return notAnswering;
  if (status >= 500) return 'The platform had a problem. Please try again in a moment.';
  return `The platform answered with an unexpected status (${status}).`;
}

/** Words for people, whatever failed: the platform's own when it gave some, otherwise the app's. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    // For these the app's words are clearer than any detail, and never leak what exists (404).
    if ([401, 403, 404, 412, 502, 504].includes(error.status) || error.status >= 500)
      return wordsForStatus(error.status);
    return error.message;
  }
  if (error instanceof NotOffered || error instanceof SessionEnded) return error.message;
  // fetch rejects with a TypeError when no answer came. The browser knows whether it is offline;
  // otherwise this app's own server answered (it served the page) and the platform did not.
  if (error instanceof TypeError)
    return navigator.onLine === false
      ? 'You are offline. Check your connection, then try again.'
      : notAnswering;
  return error instanceof Error ? error.message : 'Something went wrong.';
}
