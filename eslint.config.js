import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'data/', 'node_modules/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // SQL lives in repositories (and the database layer): a service or route that needs data
    // calls a repository function. The import rules are in .dependency-cruiser.cjs.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/]",
          message: 'SQL belongs in a repository (*.repository.ts).',
        },
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: 'SQL belongs in a repository (*.repository.ts).' },
      ],
    },
  },
)
