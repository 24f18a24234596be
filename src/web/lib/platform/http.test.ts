import { describe, expect, it } from 'vitest';
import { apiAddresses, apiUrl } from './http';

describe('apiUrl: where a path or a link of the platform is asked', () => {
  const direct = apiAddresses({
    apiBaseUrl: 'https://platform.test/',
    platformBaseUrl: 'https://platform.test',
  });
  const viaProxy = apiAddresses({
    apiBaseUrl: 'https://app.test',
    platformBaseUrl: 'https://platform.test/api/',
  });

  it('puts a path after the API base', () => {
    expect(apiUrl(direct, '/v2/core/assets/3')).toBe('https://platform.test/v2/core/assets/3');
    expect(apiUrl(viaProxy, '/v2/core/assets/3')).toBe('https://app.test/v2/core/assets/3');
  });

  it('sends a link on the platform through the API base, without the platform’s own base path', () => {
    expect(apiUrl(viaProxy, 'https://platform.test/api/v2/core/assets?cursor=c2')).toBe(
      'https://app.test/v2/core/assets?cursor=c2',
    );
    expect(apiUrl(viaProxy, '/api/v2/core/me')).toBe('https://app.test/v2/core/me');
    expect(apiUrl(viaProxy, 'https://app.test/v2/core/me')).toBe('https://app.test/v2/core/me');
  });

  it('refuses a link to any other address, so the token never goes there', () => {
    expect(() => apiUrl(viaProxy, 'https://elsewhere.test/v2/core/me')).toThrow(
      'The platform linked to another address (https://elsewhere.test); it was not followed.',
    );
    expect(() => apiUrl(direct, 'v2/core/me')).toThrow('Not an API path: v2/core/me');
  });
});
