/**
 * Writes docs/api.md, the platform's endpoint reference, from the OpenAPI document the platform
 * serves at /v2/core/openapi.json, so that the reference cannot drift from the routes' own schemas
 * (issue 30). `npm run docs:api` writes it; scripts/api-docs.test.ts fails when it is out of date.
 *
 * The output is deterministic: paths and methods sorted, no timestamps, no addresses of the machine
 * (the document's `servers` is left out), formatted by the repository's Prettier settings so that
 * `prettier --check .` accepts it as written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { buildPlatform } from '../src/platform/composition/app';
import { configFor } from '../src/platform/config/env';
import { apiPaths } from '../src/shared/api/paths';

export const apiDocsPath = fileURLToPath(new URL('../docs/api.md', import.meta.url));

interface Schema {
  type?: string;
  description?: string;
  enum?: unknown[];
  nullable?: boolean;
  pattern?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Content {
  schema?: Schema;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  security?: unknown[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, Content> };
  responses?: Record<string, { description?: string; content?: Record<string, Content> }>;
  hide?: boolean;
}

export interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

const methodOrder = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];
/** How deep nested fields are listed: deeper ones are left to the schema in the OpenAPI document. */
const maxFieldDepth = 3;

/** The platform's OpenAPI document, from a platform built in process on an empty data directory. */
export async function readOpenApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-docs-'));
  try {
    // No thumbnail workers and no log: only the routes and their schemas are needed.
    const config = configFor({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDF_THUMBNAIL_WORKERS: '0' });
    const app = await buildPlatform(config, { logger: false });
    try {
      const response = await app.inject({ method: 'GET', url: apiPaths.openapi });
      if (response.statusCode !== 200) throw new Error(`${apiPaths.openapi} answered ${response.statusCode}`);
      return response.json<OpenApiDocument>();
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A Markdown table cell: pipes escaped, line breaks folded, so a description cannot break the table. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function typeOf(schema: Schema | undefined): string {
  if (!schema) return '';
  let type = schema.type ?? 'any';
  if (type === 'array') type = `array of ${typeOf(schema.items)}`;
  const parts = [type];
  if (schema.enum)
    parts.push(`one of ${schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ')}`);
  if (schema.pattern) parts.push(`matching \`${schema.pattern}\``);
  if (schema.nullable) parts.push('or null');
  return parts.join(', ');
}

interface Field {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** An object schema's fields, nested ones by dotted name (`asset.meta`), array items as `name[]`. */
function fieldsOf(schema: Schema | undefined, prefix = '', depth = 1): Field[] {
  const target = schema?.type === 'array' ? schema.items : schema;
  if (!target?.properties) return [];
  const required = new Set(target.required ?? []);
  return Object.entries(target.properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const field: Field = {
      name: path,
      type: typeOf(property),
      required: required.has(name),
      description: property.description ?? '',
    };
    if (depth >= maxFieldDepth) return [field];
    const childPrefix = property.type === 'array' ? `${path}[].` : `${path}.`;
    return [field, ...fieldsOf(property, childPrefix, depth + 1)];
  });
}

function fieldTable(fields: Field[]): string[] {
  return [
    '| field | type | required | description |',
    '| --- | --- | --- | --- |',
    ...fields.map(
      (field) =>
        `| \`${field.name}\` | ${cell(field.type)} | ${field.required ? 'yes' : 'no'} | ${cell(field.description)} |`,
    ),
  ];
}

/**
 * A body's content types grouped by identical schema, so that a body accepted as multipart and as
 * JSON with the same fields is listed once.
 */
function contentGroups(content: Record<string, Content>): { types: string[]; schema: Schema | undefined }[] {
  const groups = new Map<string, { types: string[]; schema: Schema | undefined }>();
  for (const type of Object.keys(content).sort()) {
    const schema = content[type]?.schema;
    const key = JSON.stringify(schema ?? null);
    const group = groups.get(key);
    if (group) group.types.push(type);
    else groups.set(key, { types: [type], schema });
  }
  return [...groups.values()];
}

function renderBody(content: Record<string, Content> | undefined): string[] {
  if (!content) return [];
  return contentGroups(content).flatMap(({ types, schema }) => {
    const fields = fieldsOf(schema);
    const heading = types.map((type) => `\`${type}\``).join(', ');
    if (fields.length === 0) return [`${heading}: ${typeOf(schema) || 'any'}`, ''];
    return [`${heading}:`, '', ...fieldTable(fields), ''];
  });
}

function renderParameters(parameters: Parameter[] | undefined): string[] {
  if (!parameters?.length) return [];
  const sorted = [...parameters].sort((a, b) => a.in.localeCompare(b.in) || a.name.localeCompare(b.name));
  return [
    '**Parameters**',
    '',
    '| name | in | type | required | description |',
    '| --- | --- | --- | --- | --- |',
    ...sorted.map(
      (parameter) =>
        `| \`${parameter.name}\` | ${parameter.in} | ${cell(typeOf(parameter.schema))} | ${parameter.required ? 'yes' : 'no'} | ${cell(parameter.description ?? '')} |`,
    ),
    '',
  ];
}

function renderRequestBody(body: Operation['requestBody']): string[] {
  if (!body) return [];
  const lines = [`**Request body**${body.required ? '' : ' (optional)'}`, ''];
  if (body.description) lines.push(body.description, '');
  return [...lines, ...renderBody(body.content)];
}

function renderResponses(responses: Operation['responses']): string[] {
  if (!responses) return [];
  const statuses = Object.keys(responses).sort();
  return [
    '**Responses**',
    '',
    ...statuses.flatMap((status) => {
      const response = responses[status];
      // Fastify's placeholder says nothing a reader could use.
      const description = response?.description === 'Default Response' ? '' : (response?.description ?? '');
      return [
        `- **${status}**${description ? ` ${description}` : ''}`,
        '',
        ...indent(renderBody(response?.content)),
      ];
    }),
  ];
}

/** Indents a block under a list item, so that its tables belong to that item. */
function indent(lines: string[]): string[] {
  return lines.map((line) => (line ? `  ${line}` : line));
}

function renderOperation(path: string, method: string, operation: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} \`${path}\``, ''];
  if (operation.summary) lines.push(operation.summary, '');
  if (operation.description) lines.push(operation.description, '');
  lines.push(
    operation.security?.length ? 'Needs `Authorization: Bearer <access_token>`.' : 'No bearer token.',
    '',
  );
  return [
    ...lines,
    ...renderParameters(operation.parameters),
    ...renderRequestBody(operation.requestBody),
    ...renderResponses(operation.responses),
  ];
}

function sortedMethods(item: Record<string, Operation>): string[] {
  return Object.keys(item)
    .filter((method) => methodOrder.includes(method))
    .sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b));
}

/** docs/api.md's text for an OpenAPI document, formatted as Prettier would leave it. */
export async function renderApiDocs(document: OpenApiDocument): Promise<string> {
  const paths = Object.keys(document.paths).sort();
  const lines = [
    '# The platform API',
    '',
    '<!-- Written by `npm run docs:api` from the OpenAPI document; do not edit by hand. -->',
    '',
    `${document.info.title} ${document.info.version}, as our platform serves it at \`${apiPaths.openapi}\`. ` +
      'What the endpoints mean beyond this reference (the extensions, paging, uploads, review, ' +
      'renditions, download URLs) is in [platform-contract.md](platform-contract.md); the spec is ' +
      '`spec/platform-api.md` and its open points are settled in [decisions.md](decisions.md).',
    '',
    '## Endpoints',
    '',
    ...paths.flatMap((path) =>
      sortedMethods(document.paths[path] ?? {}).map(
        (method) =>
          `- [${method.toUpperCase()} \`${path}\`](#${anchorOf(method, path)})${summaryAfterDash(document.paths[path]?.[method])}`,
      ),
    ),
    '',
    '## Reference',
    '',
    ...paths.flatMap((path) => {
      const item = document.paths[path] ?? {};
      return sortedMethods(item).flatMap((method) => renderOperation(path, method, item[method] ?? {}));
    }),
  ];
  const options = (await prettier.resolveConfig(apiDocsPath)) ?? {};
  return prettier.format(lines.join('\n'), { ...options, parser: 'markdown' });
}

function summaryAfterDash(operation: Operation | undefined): string {
  return operation?.summary ? ` — ${operation.summary}` : '';
}

/** GitHub's anchor for the heading `### METHOD \`path\``: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(method: string, path: string): string {
  return `${method} ${path}`
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** The reference as the code now describes it. */
export async function currentApiDocs(): Promise<string> {
  return renderApiDocs(await readOpenApiDocument());
}

async function main() {
  writeFileSync(apiDocsPath, await currentApiDocs());
  console.log(`wrote ${apiDocsPath}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
