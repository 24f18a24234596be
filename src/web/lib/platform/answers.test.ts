import { describe, expect, it } from 'vitest';
import { retryAfterMs, withQuery } from './answers';

describe('withQuery: a platform link with parameters set', () => {
  it('keeps a path a path, and an absolute link absolute', () => {
    expect(withQuery('/v2/core/products/7/assets', { cursor: 'c2' })).toBe(
      '/v2/core/products/7/assets?cursor=c2',
    );
    expect(withQuery('https://platform.test/v2/core/assets?limit=5', { cursor: 'c2' })).toBe(
      'https://platform.test/v2/core/assets?limit=5&cursor=c2',
    );
  });

  it('replaces a parameter the link already carries instead of adding a second one', () => {
    expect(withQuery('/v2/core/assets?cursor=c1&file_type=logo', { cursor: 'c2', limit: '1' })).toBe(
      '/v2/core/assets?cursor=c2&file_type=logo&limit=1',
    );
  });
});

describe('retryAfterMs: how long to wait before asking again', () => {
  const answer = (retryAfter?: string) =>
    new Response(null, {
      status: 409,
      headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
    });

  it('reads seconds, and waits five minutes at most', () => {
    expect(retryAfterMs(answer('30'))).toBe(30_000);
    expect(retryAfterMs(answer('86400'))).toBe(300_000);
  });

  it('waits a second when the header is absent, zero or in a form it does not read (an HTTP date)', () => {
    expect(retryAfterMs(answer())).toBe(1000);
    expect(retryAfterMs(answer('0'))).toBe(1000);
    expect(retryAfterMs(answer('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(1000);
  });
});
