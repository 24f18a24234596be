// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

const programs = ['web', 'proxy', 'platform', 'cli'];
const others = (self) => programs.filter((p) => p !== self);

/** The web app's features (src/web/features/*): each an element of its own, inside `web`. */
const webFeatures = readdirSync('src/web/features', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const featureType = (feature) => `web-feature:${feature}`;
/** The element types a program's files have: the web app's features are part of `web`. */
const typesOf = (program) => (program === 'web' ? ['web', ...webFeatures.map(featureType)] : [program]);

/**
 * Module boundaries of architecture.md: each program imports `shared` and never another program;
 * `shared` imports nothing of ours; end-to-end tests reach the programs over HTTP only; inside the web
 * app, features do not import each other (shared pieces move to `components/` or `lib/`).
 */
const boundaryPolicies = [
  {
    from: { element: { type: 'shared' } },
    disallow: { to: { element: { types: { anyOf: [...programs.flatMap(typesOf), 'e2e'] } } } },
    message: 'src/shared is the contract: it imports nothing of ours.',
  },
  ...programs.flatMap((program) =>
    typesOf(program).map((type) => ({
      from: { element: { type } },
      disallow: { to: { element: { types: { anyOf: [...others(program).flatMap(typesOf), 'e2e'] } } } },
      message: 'web, proxy, platform and cli never import each other; share code through src/shared.',
    })),
  ),
  ...webFeatures.map((feature) => ({
    from: { element: { type: featureType(feature) } },
    disallow: {
      to: { element: { types: { anyOf: webFeatures.filter((f) => f !== feature).map(featureType) } } },
    },
    message:
      'Web features do not import each other: move what both need to src/web/components or src/web/lib.',
  })),
  {
    from: { element: { type: 'e2e' } },
    disallow: { to: { element: { types: { anyOf: programs.flatMap(typesOf) } } } },
    message: 'End-to-end tests talk to the running programs over HTTP and the browser only.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'test-results', 'playwright-report', '.tmp', '.cluster'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { boundaries },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      // The first element whose pattern matches a file is its element: features before `web`.
      'boundaries/elements': [
        ...webFeatures.map((feature) => ({
          type: featureType(feature),
          pattern: `src/web/features/${feature}`,
        })),
        ...['shared', ...programs].map((name) => ({ type: name, pattern: `src/${name}` })),
        { type: 'e2e', pattern: 'e2e' },
      ],
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'allow', policies: boundaryPolicies }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['node:*'], message: 'src/shared runs in the browser too: no node: imports.' }],
        },
      ],
    },
  },
  {
    // Queries live in db/ (repositories, migrations); the feature folders call them by name, so a
    // change of database library or of a table is made in one folder. Tests may query directly.
    files: ['src/platform/**/*.ts'],
    ignores: ['src/platform/db/**', 'src/platform/testing/**', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              message: 'Only src/platform/db/ imports kysely: add a repository function there.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
