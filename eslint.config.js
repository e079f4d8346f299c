// One lint setup for the whole repository (backend, db, ops and the console).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.angular/', '.demo/', 'coverage/', 'tmp/', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // a file a reader takes in whole: past this, split it along what it does (docs/architecture.md)
      'max-lines': ['error', { max: 400 }],
    },
  },
  {
    files: ['frontend/**/*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.jasmine } },
    // Angular injects constructor parameters by type: type-only imports would break that
    rules: { '@typescript-eslint/consistent-type-imports': 'off', 'no-console': 'off' },
  },
  {
    files: ['ops/**/*.ts', '**/*.test.ts', 'backend/src/testing/**'],
    rules: { 'no-console': 'off' },
  },
);
