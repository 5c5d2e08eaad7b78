import tseslint from 'typescript-eslint';
import { noImportCycle } from './lint-rules/no-import-cycle.js';

const THROUGH_INDEX = {
  regex: '^(?:\\.\\./)+(?:[a-z-]+/)+(?!index\\.ts$)[a-z-]+\\.ts$',
  message: 'Import a module through its index.ts.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', 'test-results/**', 'bench/results/**', 'demo/**', 'scratch/**', '.cache/**', 'src/web/static/**', 'eslint.config.js', 'lint-rules/**'] },
  ...tseslint.configs.strictTypeChecked,
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Fastify handlers and hooks are async by convention, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { quarry: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [THROUGH_INDEX] }],
      // A module that imports itself back through others sees some of its imports undefined while it loads; one that
      // does so through types alone cannot be understood or moved without the others. import-x/no-cycle skips types.
      'quarry/no-import-cycle': 'error',
    },
  },
  {
    // The project files are read by everything, so they depend on nothing but the error tree: no cycle can
    // run through them, and they can be understood and tested alone.
    files: ['src/config/**/*.ts'],
    ignores: ['src/config/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [THROUGH_INDEX, { regex: '^\\.\\./(?!errors\\.ts$)', message: 'src/config/ imports nothing else in src/ but errors.ts.' }],
      }],
    },
  },
  {
    files: ['test/**', 'src/**/*.test.ts', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read JSON response bodies field by field; typing each body would restate the assertions.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
