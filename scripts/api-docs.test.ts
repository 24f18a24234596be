import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiDocsPath, currentApiDocs, renderApiDocs, type OpenApiDocument } from './api-docs';

describe('docs/api.md', () => {
  it('is what `npm run docs:api` writes from the platform’s OpenAPI document today', async () => {
    const written = readFileSync(apiDocsPath, 'utf8');
    const current = await currentApiDocs();
    expect(written === current, 'docs/api.md is out of date: run `npm run docs:api` and commit it').toBe(
      true,
    );
  });

  it('lists every path and method sorted, with parameters, body fields and responses by status', async () => {
    const document: OpenApiDocument = {
      info: { title: 'API', version: '1' },
      paths: {
        '/b': {
          put: {
            summary: 'Change a b',
            security: [{ bearer: [] }],
            parameters: [
              {
                in: 'path',
                name: 'id',
                required: true,
                schema: { type: 'string' },
                description: 'This | that',
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['b'],
                    properties: { b: { type: 'object', properties: { name: { type: 'string' } } } },
                  },
                },
              },
            },
            responses: {
              '412': { description: 'Changed since' },
              '200': { description: 'Default Response' },
            },
          },
          get: { summary: 'Read a b' },
        },
        '/a': { get: { summary: 'Read an a', description: 'The a.' } },
      },
    };
    const markdown = await renderApiDocs(document);
    // Prettier pads table cells to the column's width: compare rows with single spaces.
    const rows = markdown.replace(/ {2,}/g, ' ');
    const headings = markdown.split('\n').filter((line) => line.startsWith('### '));
    expect(headings).toEqual(['### GET `/a`', '### GET `/b`', '### PUT `/b`']);
    expect(rows).toContain('| `id` | path | string | yes | This \\| that |');
    expect(rows).toContain('| `b.name` | string | no |');
    expect(markdown.indexOf('**200**')).toBeLessThan(markdown.indexOf('**412** Changed since'));
    expect(markdown).toContain('Needs `Authorization: Bearer <access_token>`.');
    expect(await renderApiDocs(document)).toBe(markdown);
  });
});
