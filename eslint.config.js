// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

const programs = ['web', 'proxy', 'platform', 'cli'];
const others = (self) => programs.filter((p) => p !== self);

/**
 * Module boundaries of architecture.md: each program imports `shared` and never another program;
 * `shared` imports nothing of ours; end-to-end tests reach the programs over HTTP only.
 */
const boundaryPolicies = [
  {
    from: { element: { type: 'shared' } },
    disallow: { to: { element: { types: { anyOf: [...programs, 'e2e'] } } } },
    message: 'src/shared is the contract: it imports nothing of ours.',
  },
  ...programs.map((program) => ({
    from: { element: { type: program } },
    disallow: { to: { element: { types: { anyOf: [...others(program), 'e2e'] } } } },
    message: 'web, proxy, platform and cli never import each other; share code through src/shared.',
  })),
  {
    from: { element: { type: 'e2e' } },
    disallow: { to: { element: { types: { anyOf: programs } } } },
    message: 'End-to-end tests talk to the running programs over HTTP and the browser only.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'test-results', 'playwright-report', '.tmp'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { boundaries },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      'boundaries/elements': [
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
  prettier,
);
