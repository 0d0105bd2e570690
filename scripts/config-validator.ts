/**
 * The text of src/config-validator.ts: the validator of the environment's variables (EnvSchema of
 * src/config.ts, with its options), compiled ahead of time as Ajv's standalone code. Compiling it
 * at each start cost every command, server and test process a fifth of its start: loading Ajv and
 * generating the function. `npm run config:validator` writes it (scripts/write-config-validator.ts);
 * the tests fail while the committed file differs (config.test.ts).
 */
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import standaloneCode from 'ajv/dist/standalone/index.js'
import { ENV_VALIDATION, EnvSchema } from '../src/config.js'

export const CONFIG_VALIDATOR_FILE = fileURLToPath(new URL('../src/config-validator.ts', import.meta.url))

/** The file's text. The code is Ajv's, type-checked only through the type config.ts gives it. */
export function configValidatorSource(schema: object = EnvSchema): string {
  const ajv = new Ajv({ ...ENV_VALIDATION, code: { source: true, esm: true, lines: true } })
  const validate = ajv.compile({ ...schema, additionalProperties: false })
  // Its few runtime helpers (the length of a string in code points) are CommonJS modules of Ajv,
  // which the code requires: imported instead, as an ES module does.
  const imports: string[] = []
  const code = standaloneCode
    .default(ajv, validate)
    .replace(/^"use strict";\n?/, '')
    .replace(/require\("([^"]+)"\)/g, (_, helper: string) => {
      imports.push(`import helper${imports.length} from '${helper}.js'`)
      return `helper${imports.length - 1}`
    })
  return [
    '/* eslint-disable */',
    '// @ts-nocheck',
    '// Written by `npm run config:validator` (scripts/write-config-validator.ts) from EnvSchema of',
    "// src/config.ts: Ajv's standalone code, compiled ahead of time. Do not edit.",
    ...imports,
    code,
  ].join('\n')
}
