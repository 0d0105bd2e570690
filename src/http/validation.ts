import { Ajv, type Options } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

const common: Options = {
  allErrors: false,
  useDefaults: true,
  removeAdditional: false,
  // OpenAPI keywords that JSON Schema validation does not use.
  keywords: ['example', 'x-deprecated-sunset'],
  strict: true,
}

function withFormats(ajv: Ajv): Ajv {
  // The range is enforced by minimum/maximum; the format only documents the width.
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger })
  return ajv
}

/** Bodies are JSON and typed by the client: a string is never taken for a number. */
const bodyAjv = withFormats(new Ajv({ ...common, coerceTypes: false }))
/** Query strings, paths and headers are text: integers are read from their digits. */
const textAjv = withFormats(new Ajv({ ...common, coerceTypes: true }))

/** Strict JSON bodies, coerced text parts: one compiler for every route. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  return ajv.compile(schema)
}
