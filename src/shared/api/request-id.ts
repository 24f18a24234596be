/**
 * X-Request-Id: the caller's (nginx sets one, `$request_id`; a client or another service may), or
 * one made here. A caller's id is believed only when it is short and plain (letters, digits and
 * `-._:`, at most 64 characters): it goes into every log line of its request and back on the
 * answer, where a control character could forge log lines or headers.
 */
export const requestIdHeader = 'x-request-id';

const acceptable = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && acceptable.test(header) ? header : crypto.randomUUID();
}
