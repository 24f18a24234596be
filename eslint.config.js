// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';

const programs = ['web', 'proxy', 'platform', 'cli'];

/** Each program imports `shared` and never another program; `shared` imports nothing of ours. */
const boundaryZones = [
  {
    target: './src/shared',
    from: programs.map((p) => `./src/${p}`),
    message: 'src/shared is the contract: it imports nothing of ours.',
  },
  ...programs.map((program) => ({
    target: `./src/${program}`,
    from: programs.filter((p) => p !== program).map((p) => `./src/${p}`),
    message: 'web, proxy, platform and cli never import each other; share code through src/shared.',
  })),
  {
    target: './e2e',
    from: programs.map((p) => `./src/${p}`),
    message: 'End-to-end tests talk to the running programs over HTTP and the browser only.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'test-results', 'playwright-report', '.tmp'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: boundaryZones }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
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
  prettier,
);
