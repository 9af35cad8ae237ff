import js from '@eslint/js'
import n from 'eslint-plugin-n'
import unicorn from 'eslint-plugin-unicorn'
import tseslint from 'typescript-eslint'

const SQL_IN_ADAPTER =
  'No SQL in an adapter: call a function of the module that owns the table (docs/architecture.md)'

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'scratch/',
      'migrations/',
      'coverage/',
      'dist/',
      // type-checked with tsc --strict against its generated types by src/http/generated-client.test.ts
      'examples/',
      '**/*.js',
      '**/*.mjs',
      '!eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { n, unicorn },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'n/no-process-env': 'error',
      'unicorn/filename-case': ['error', { case: 'kebabCase' }],
    },
  },
  {
    files: [
      'src/config.ts',
      'bench/**',
      'scripts/**',
      'vitest.config.ts',
      'drizzle.config.ts',
      '**/*.test.ts',
    ],
    rules: { 'n/no-process-env': 'off' },
  },
  {
    // expect.any() and JSON bodies are `any` by design in tests
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // adapters (routes, console pages, CLI commands) call domain functions: every SQL statement
    // lives in the module that owns its table (docs/architecture.md)
    files: ['src/http/**', 'src/console/**', 'src/cli/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'better-sqlite3', message: SQL_IN_ADAPTER }],
          patterns: [{ group: ['drizzle-orm', 'drizzle-orm/*'], message: SQL_IN_ADAPTER }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(prepare|pragma|transaction)$/]',
          message: SQL_IN_ADAPTER,
        },
      ],
    },
  },
  {
    // sizes held by the build: a file at most 500 lines, a function at most 120 (blank lines and
    // comments not counted) in product code, the bench and the tools
    files: ['src/**/*.{ts,tsx}', 'bench/**/*.ts', 'tools/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/testing/**'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['eslint.config.js', '.dependency-cruiser.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { module: 'writable' },
    },
  },
)
