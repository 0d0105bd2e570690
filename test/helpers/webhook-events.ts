/**
 * Events checked against the published document: the `webhooks` section of `openapi.json` (the
 * file integrators download), compiled with formats, as a strict integrator would validate them.
 */
import { readFileSync } from 'node:fs'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

interface PublishedDocument {
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>
}

let published: { doc: PublishedDocument; ajv: Ajv2020 } | undefined
const validators = new Map<string, ValidateFunction>()

function document(): { doc: PublishedDocument; ajv: Ajv2020 } {
  if (!published) {
    const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as PublishedDocument
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(ajv)
    ajv.addSchema(doc, 'published')
    published = { doc, ajv }
  }
  return published
}

/** Why `body` (an event as sent) does not match its type's schema in openapi.json; undefined when it does. */
export function eventSchemaError(body: string): string | undefined {
  const event = JSON.parse(body) as { type?: unknown }
  const type = String(event.type)
  let validate = validators.get(type)
  if (!validate) {
    const { doc, ajv } = document()
    const schema = doc.webhooks[type]?.post.requestBody.content['application/json']?.schema
    if (!schema) return `${type} is not in the webhooks section of openapi.json`
    validate = ajv.getSchema(`published${schema.$ref}`)
    if (!validate) return `${type}: no schema at ${schema.$ref}`
    validators.set(type, validate)
  }
  return validate(event) ? undefined : `${type} does not match its schema in openapi.json: ${document().ajv.errorsText(validate.errors)}\n${body}`
}
