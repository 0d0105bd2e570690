import { Ajv, type Options, type ValidateFunction } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

const options: Options = {
  allErrors: false,
  useDefaults: true,
  removeAdditional: false,
  // Never guess a type: "1" is not 1 in a JSON body, and "1e3" or "0x10" is not an id in a URL.
  coerceTypes: false,
  keywords: ['example', 'x-deprecated-sunset'],
  strict: true,
  // Error messages quote the schema's ranges.
  verbose: true,
}

const ajv = new Ajv(options)
// The range is enforced by minimum/maximum; the format only documents the width.
ajv.addFormat('int64', { type: 'number', validate: Number.isInteger })

/** Decimal digits as written by people and clients: no sign, exponent, hex, spaces or leading zeros. */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]{0,19})$/

interface ObjectSchema {
  properties?: Record<string, { type?: string }>
}

/**
 * One compiler for every route. Bodies are validated as sent. Query strings and paths are text,
 * so their integer fields are read from canonical decimal digits first; anything else stays
 * text and fails the schema with a message naming the field.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validate = ajv.compile(schema)
  if (httpPart !== 'querystring' && httpPart !== 'params') return validate
  const integers = Object.entries((schema as ObjectSchema).properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name)
  if (integers.length === 0) return validate

  const readIntegers = ((data: Record<string, unknown>) => {
    for (const name of integers) {
      const value = data[name]
      if (typeof value === 'string' && CANONICAL_INTEGER.test(value)) data[name] = Number(value)
    }
    const valid = validate(data)
    readIntegers.errors = validate.errors
    return valid
  }) as ValidateFunction
  return readIntegers
}
