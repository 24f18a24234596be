import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from '../testing/platform-server';

interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
}
interface Operation {
  parameters?: { in: string; name: string; required?: boolean; schema?: { enum?: string[] } }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let platform: TestPlatform;
let doc: Doc;
beforeAll(async () => {
  platform = await startPlatform();
  doc = (await (await fetch(`${platform.url}/v2/core/openapi.json`)).json()) as Doc;
});
afterAll(() => platform.close());

const operation = (path: string, method: string) => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  return found;
};
const mediaTypes = (path: string, method: string, status: string) =>
  Object.keys(operation(path, method).responses[status]?.content ?? {});

describe('AS2 the OpenAPI document says what the platform sends and takes', () => {
  it('declares problem responses as application/problem+json', async () => {
    expect(mediaTypes('/v2/core/assets/{id}', 'get', '404')).toEqual(['application/problem+json']);
    expect(mediaTypes('/v2/core/assets', 'post', '422')).toEqual(['application/problem+json']);
    expect(mediaTypes('/v2/core/me', 'get', '401')).toEqual(['application/problem+json']);
    // Every error of the API, that is all but the RFC 6749 endpoints and the sign-in pages.
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (path.startsWith('/v2/core/oauth/') || !path.startsWith('/v2/core/')) continue;
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          expect(Object.keys(response.content ?? {}), `${method} ${path} ${status}`).toEqual([
            'application/problem+json',
          ]);
        }
      }
    }
  });

  it('keeps the token and revocation errors in RFC 6749 JSON', async () => {
    expect(mediaTypes('/v2/core/oauth/token', 'post', '400')).toEqual(['application/json']);
    expect(mediaTypes('/v2/core/oauth/revoke', 'post', '401')).toEqual(['application/json']);
  });

  it('declares both token request bodies: JSON (the spec) and a form (RFC 6749)', async () => {
    for (const path of ['/v2/core/oauth/token', '/v2/core/oauth/revoke']) {
      expect(Object.keys(operation(path, 'post').requestBody?.content ?? {}).sort()).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
    }
  });

  it('declares the create body as multipart (spec 4.3) and as JSON', async () => {
    expect(Object.keys(operation('/v2/core/assets', 'post').requestBody?.content ?? {}).sort()).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
  });

  it('documents the authorize parameters', async () => {
    const parameters = operation('/auth/login/oauth/authorize', 'get').parameters ?? [];
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual([
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'prompt',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ]);
    expect(parameters.every((p) => p.in === 'query')).toBe(true);
    for (const name of ['client_id', 'redirect_uri', 'state', 'scope'])
      expect(byName[name]?.required).toBe(true);
    expect(byName.scope?.schema?.enum).toEqual(['basic', 'full']);
    expect(byName.code_challenge_method?.schema?.enum).toEqual(['S256']);
    expect(Object.keys(operation('/auth/login/oauth/authorize', 'get').responses).sort()).toEqual([
      '200',
      '302',
      '400',
    ]);
  });

  it('lists the authorization-server metadata', async () => {
    expect(mediaTypes('/.well-known/oauth-authorization-server', 'get', '200')).toEqual(['application/json']);
  });

  it('documents the paging of an entity’s assets, in the list and in the entity read', async () => {
    const list = operation('/v2/core/products/{id}/assets', 'get');
    expect((list.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)).toEqual([
      'cursor',
      'limit',
      'file_type',
    ]);
    const listed = list.responses['200']?.content?.['application/json']?.schema;
    expect(Object.keys(listed?.properties ?? {})).toEqual(['assets', 'next_cursor']);
    expect(listed?.properties?.next_cursor?.nullable).toBe(true);
    const read = operation('/v2/core/products/{id}', 'get').responses['200']?.content?.['application/json'];
    const body = read?.schema?.properties;
    expect(Object.keys(body ?? {})).toEqual(['assets', 'next_cursor', 'product']);
    const links = body?.product?.properties?.links;
    expect(Object.keys(links?.properties ?? {})).toEqual(['assets', 'next_assets']);
    expect(links?.required).toEqual(['assets']);
  });
});
