// One lint setup for the whole repository (backend, db, ops and the console).
import js from '@eslint/js';
import angular from 'angular-eslint';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import argus from './ops/lint/own-lines-per-function.js';

/** Console code that only the specs load: held to the test rules, never to the production ones. */
const CONSOLE_TEST_SUPPORT = ['frontend/**/*.spec.ts', 'frontend/**/*-testing.ts', 'frontend/src/app/testing.ts'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.angular/', '.demo/', 'coverage/', 'tmp/', '**/*.cjs'] },
  {
    files: ['**/*.{js,ts,mjs}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
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
    extends: [...angular.configs.tsRecommended],
    // inline templates are linted with the template rules below, as the external ones are
    processor: angular.processInlineTemplates,
    languageOptions: { globals: { ...globals.browser, ...globals.jasmine } },
    rules: {
      // Angular injects constructor parameters by type: type-only imports would break that
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-console': 'off',
      '@angular-eslint/component-selector': ['error', { type: 'element', prefix: 'argus', style: 'kebab-case' }],
      '@angular-eslint/directive-selector': ['error', { type: 'attribute', prefix: 'argus', style: 'camelCase' }],
    },
  },
  {
    // a function a reader takes in at once; a longer one is split into named steps
    files: ['frontend/src/**/*.ts'],
    ignores: CONSOLE_TEST_SUPPORT,
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // the same measure for the server, the agent and what they share, counted per function: a factory
    // returning an object of methods is not charged for its methods' bodies (ops/lint/own-lines-per-function.js)
    files: ['backend/src/**/*.ts', 'agent/src/**/*.ts', 'probes/**/*.ts', 'contracts/**/*.ts'],
    ignores: ['**/*.test.ts', 'backend/src/testing/**'],
    plugins: { argus },
    rules: { 'argus/own-lines-per-function': ['error', { max: 80 }] },
  },
  {
    // zod stays out of the agent's executable: its types are free, its values cost megabytes of heap
    // (contract values are held off by the agent-takes-contract-types-only rule of .dependency-cruiser.cjs)
    files: ['agent/src/**/*.ts', 'probes/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'zod',
              allowTypeImports: true,
              message:
                'The agent takes types from zod, never values (a schema it must run is a dynamic import of contracts/).',
            },
          ],
        },
      ],
    },
  },
  {
    // a parent-relative import reads like a path out of the app: other folders go through the alias
    files: ['frontend/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*'], message: 'Import another folder of the console as @console/<path>.' }] },
      ],
    },
  },
  {
    files: ['frontend/**/*.html'],
    extends: [...angular.configs.templateRecommended, ...angular.configs.templateAccessibility],
  },
  {
    files: ['ops/**/*.ts', '**/*.test.ts', 'backend/src/testing/**'],
    rules: { 'no-console': 'off' },
  },
);
