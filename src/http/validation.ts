import type * as AjvModule from 'ajv'
import type { Ajv as AjvInstance, Options, ValidateFunction } from 'ajv'
import type FormatsPlugin from 'ajv-formats'
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify'
import { lazy } from '../lazy.js'
import { onFirstUse } from './first-use.js'

const options: Options = {
  allErrors: false,
  useDefaults: true,
  removeAdditional: false,
  // Never guess a type: "1" is not 1 in a JSON body, and "1e3" or "0x10" is not an id in a URL.
  coerceTypes: false,
  // `x-expected`: what a value matching the pattern looks like, for the error message;
  // `x-stability`: a field added as beta (documentation only).
  keywords: ['example', 'x-deprecated-sunset', 'x-expected', 'x-stability'],
  strict: true,
  // Error messages quote the schema's ranges.
  verbose: true,
}

const ajvPackage = lazy<typeof AjvModule>('ajv')
const formatsPackage = lazy<typeof FormatsPlugin>('ajv-formats')

let compiler: AjvInstance | undefined

/**
 * The validators' compiler, made at the first schema compiled: a command that checks nothing
 * (most of the CLI's) does not load Ajv, which was a sixth of its start.
 */
function ajv(): AjvInstance {
  if (compiler) return compiler
  compiler = new (ajvPackage().Ajv)(options)
  // The range is enforced by minimum/maximum; the format only documents the width.
  compiler.addFormat('int64', { type: 'number', validate: Number.isInteger })
  // RFC 3339 dates (a calendar date: 2024-02-30 is refused) and instants (with their offset), and URIs.
  formatsPackage().default(compiler, ['date', 'date-time', 'uri'])
  return compiler
}

/** Decimal digits as written by people and clients: no sign, exponent, hex, spaces or leading zeros. */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]{0,19})$/

interface ObjectSchema {
  properties?: Record<string, { type?: string }>
}

/** Each distinct schema's validator, by request part, made once per process. */
const validators = new WeakMap<object, Map<string, ValidateFunction>>()

/**
 * One compiler for every route. Bodies are validated as sent. Query strings and paths are text,
 * so their integer fields are read from canonical decimal digits first; anything else stays
 * text and fails the schema with a message naming the field. No string may contain U+0000:
 * PostgreSQL cannot store or even compare one (the query fails), SQLite can; refused up front,
 * it is the same 400 on both. Each schema compiles at its first request (./first-use.ts); the
 * apps of one process share their validators, since their routes declare the same schema objects.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const part = httpPart ?? ''
  let byPart = validators.get(schema)
  if (!byPart) validators.set(schema, (byPart = new Map()))
  let validator = byPart.get(part)
  if (!validator) byPart.set(part, (validator = requestPartValidator(schema, part)))
  return validator
}

function requestPartValidator(schema: object, httpPart: string): ValidateFunction {
  const validate = onFirstUse(() => ajv().compile(schema))
  const properties = (schema as ObjectSchema).properties ?? {}
  const integers =
    httpPart === 'querystring' || httpPart === 'params'
      ? Object.entries(properties)
          .filter(([, property]) => property.type === 'integer')
          .map(([name]) => name)
      : []
  // Unknown query parameters are dropped, not refused: clients add their own (`_=<time>` to
  // defeat caches, tracking tags), and a GET is safe to answer without them. Bodies stay strict.
  const known = httpPart === 'querystring' ? new Set(Object.keys(properties)) : undefined

  const validateRequestPart = ((data: Record<string, unknown>) => {
    if (known) for (const name in data) if (!known.has(name)) delete data[name]
    for (const name of integers) {
      const value = data[name]
      if (typeof value === 'string' && CANONICAL_INTEGER.test(value)) data[name] = Number(value)
    }
    const compiled = validate()
    if (!compiled(data)) {
      validateRequestPart.errors = compiled.errors
      return false
    }
    // Every request passes here: the common case (no NUL) allocates nothing.
    const nul = hasNul(data) ? pathToNul(data, '') : undefined
    validateRequestPart.errors = nul === undefined ? null : [{ keyword: 'nul', instancePath: nul, schemaPath: '#', params: {}, message: 'must not contain the NUL character (U+0000)' }]
    return nul === undefined
  }) as ValidateFunction
  return validateRequestPart
}

type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']

/**
 * `validatorCompiler` for every scope, as Fastify's `schemaController.compilersFactory` option:
 * `setValidatorCompiler` misses scopes that add schemas of their own (they rebuild their compiler
 * from this factory), which left sign-in's body to Fastify's default Ajv. Fastify calls the
 * compiler with route schemas, as it does one given to `setValidatorCompiler`; the declared type
 * (Ajv's own `compile`) says otherwise.
 */
export const buildValidator = (() => validatorCompiler) as unknown as ValidatorFactory

/** Whether any string in a validated value (its keys included) holds U+0000. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  for (const key in record) if (key.includes('\u0000') || hasNul(record[key])) return true
  return false
}

/** The JSON pointer of the first string holding U+0000 in a validated value (its keys included); undefined when none. */
function pathToNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    if (key.includes('\u0000')) return at
    const found = pathToNul(item, at)
    if (found !== undefined) return found
  }
  return undefined
}
