// Lint: typescript-eslint's recommended rules, and the layer rule of ARCHITECTURE.md —
// only src/extension.ts, src/commands/ and src/views/ may import `vscode`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const vscodeBan = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        {
          name: 'vscode',
          message: 'Only src/extension.ts, src/commands/ and src/views/ may import vscode: the core runs in plain Node.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'assembly/**', 'node_modules/**', 'out/**', 'bench/.corpus/**', 'bench/.scale/**', 'bench/corpus/node_modules/**', 'bench/.ranking/**', 'bench/.agent/**', 'bench/ranking-corpus/node_modules/**', 'bench/results/**', 'bench/node_modules/**', 'test/fixtures/**', '.e2e/**', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', fetch: 'readonly', AbortSignal: 'readonly' } },
    rules: {
      ...vscodeBan,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['src/extension.ts', 'src/commands/**', 'src/views/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
