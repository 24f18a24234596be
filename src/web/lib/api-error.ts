import type { FieldError, Problem } from '../../shared/api/problem';

/**
 * Every failed platform call ends in one of these, built from the problem JSON (decisions.md). The client
 * never shows anything itself: components decide what to say and where.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static fromProblem(problem: Problem): ApiError {
    return new ApiError(problem.status, problem.code, problem.detail ?? problem.title, problem.errors ?? []);
  }

  static async fromResponse(response: Response): Promise<ApiError> {
    const body: unknown = await response.json().catch(() => undefined);
    if (isProblem(body)) return ApiError.fromProblem(body);
    return new ApiError(response.status, 'http_error', `The platform answered HTTP ${response.status}.`);
  }
}

/**
 * The fields the app relies on. A structural check rather than the shared zod schema: zod would be the
 * largest library on the first page (performance.md W1) for one shape the platform already guarantees.
 */
function isProblem(body: unknown): body is Problem {
  const problem = body as Partial<Problem> | null;
  return (
    typeof problem === 'object' &&
    problem !== null &&
    typeof problem.status === 'number' &&
    typeof problem.code === 'string' &&
    typeof problem.title === 'string'
  );
}

/** Words for people, whatever failed: the platform's own detail when it gave one. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404) return 'This was not found, or you do not have access to it.';
    if (error.status === 403) return 'You do not have permission to do this.';
    if (error.status >= 500) return 'The platform had a problem. Please try again in a moment.';
    return error.message;
  }
  if (error instanceof TypeError)
    return 'The platform cannot be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}
