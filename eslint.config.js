import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { packageBoundaries, packageLinks } from './eslint.boundaries.js';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/fixtures/**', '.turbo/**', '.bench-work/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        clearImmediate: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-control-regex': 'off',
    },
  },
  // clippy's bin scripts are CommonJS (packages/cli/bin/package.json): node starts them sooner.
  {
    files: ['packages/cli/bin/**'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Last: each block holds its rules' whole options for the files it matches.
  ...packageBoundaries,
  ...packageLinks,
);
