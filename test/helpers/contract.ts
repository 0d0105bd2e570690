import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

/**
 * Checks a response against the app's own OpenAPI document:
 * - a documented operation answers only documented statuses, with bodies that match the schema
 *   and the documented headers in their documented types;
 * - everything else (unknown routes, other methods, ops routes' errors) is the Error envelope;
 * - every non-2xx response is application/json with `{ code, message, status }` and a status
 *   field equal to the HTTP status;
 * - a HEAD answers as its GET is documented to (statuses, headers), without a body.
 */
export function assertMatchesContract(app: FastifyInstance, request: InjectOptions, response: LightMyRequestResponse): void {
  const { doc, ajv } = contractOf(app)
  const requested = (request.method ?? 'GET').toString().toLowerCase()
  const head = requested === 'head'
  const method = head ? 'get' : requested
  const url = new URL(request.url?.toString() ?? (request.path as string), 'http://localhost')
  const where = `${requested.toUpperCase()} ${url.pathname} -> ${response.statusCode}`
  const operation = findOperation(doc, method, url.pathname)
  const isError = response.statusCode >= 400

  if (head) {
    assert.equal(response.body, '', `${where}: a HEAD answer has no body`)
  } else if (isError || response.headers['content-type']?.toString().includes('json')) {
    assert.match(String(response.headers['content-type']), /^application\/json/, `${where}: content type`)
  }
  if (isError && !head) {
    const body = jsonOf(response) as { status?: unknown; code?: unknown }
    assert.ok(validatorOf(ajv, 'openapi#/components/schemas/Error')(body), `${where}: not an Error envelope: ${response.body}`)
    assert.equal(body.status, response.statusCode, `${where}: Error.status differs from the HTTP status`)
    assert.match(String(body.code), /^[a-z]+(_[a-z]+)*$/, `${where}: code is not lower snake_case`)
  }
  if (!operation) return

  const documented = operation.operation.responses[String(response.statusCode)]
  assert.ok(documented, `${where}: status ${response.statusCode} is not documented for ${operation.operation.operationId}`)
  const pointer = `openapi#/paths/${escape(operation.path)}/${method}/responses/${response.statusCode}`
  if (documented.content?.['application/json'] && !head) {
    const validate = validatorOf(ajv, `${pointer}/content/application~1json/schema`)
    assert.ok(validate(jsonOf(response)), `${where}: body does not match the documented schema: ${ajv.errorsText(validate.errors)}\n${response.body}`)
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = response.headers[name.toLowerCase()]
    if (value === undefined) continue
    const typed = header.schema?.type === 'integer' ? Number(value) : value
    assert.ok(ajv.validate(header.schema ?? {}, typed), `${where}: header ${name}=${String(value)} does not match its schema`)
  }
}

/** The body as sent before any content coding (the app compresses answers of 1 KiB and more). */
export function bodyOf(response: LightMyRequestResponse): string {
  const encoding = response.headers['content-encoding']
  if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString('utf8')
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString('utf8')
  assert.ok(encoding === undefined || encoding === 'identity', `unexpected Content-Encoding: ${String(encoding)}`)
  return response.body
}

/** The JSON body, decoded first when compressed. */
export function jsonOf<T = unknown>(response: LightMyRequestResponse): T {
  return JSON.parse(bodyOf(response)) as T
}

interface Operation {
  operationId: string
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, { schema?: { type?: string } }> }>
}
interface OpenApiDoc {
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
}

interface Contract {
  doc: OpenApiDoc
  ajv: Ajv2020
}

const contracts = new WeakMap<FastifyInstance, Contract>()

function contractOf(app: FastifyInstance): Contract {
  let contract = contracts.get(app)
  if (!contract) {
    contract = compiledContract<OpenApiDoc>(app.swagger(), 'openapi')
    contracts.set(app, contract)
  }
  return contract
}

/**
 * Compiled contracts by the text of their document: apps built with the same configuration serve
 * the same document, and compiling its schemas again for each test's app costs more than the test.
 */
const compiled = new Map<string, { doc: unknown; ajv: Ajv2020 }>()

/** `document` (a copy of it) and an Ajv holding its schemas under `id`, compiled once per text. */
export function compiledContract<Doc>(document: unknown, id: string): { doc: Doc; ajv: Ajv2020 } {
  const text = JSON.stringify(document)
  let contract = compiled.get(`${id}\0${text}`)
  if (!contract) {
    const doc = JSON.parse(text) as unknown
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema(doc as object, id)
    contract = { doc, ajv }
    compiled.set(`${id}\0${text}`, contract)
  }
  return contract as { doc: Doc; ajv: Ajv2020 }
}

function findOperation(doc: OpenApiDoc, method: string, pathname: string) {
  // Paths in the document are relative to the servers, which end in /v1.
  if (!pathname.startsWith('/v1/')) return undefined
  const relative = pathname.slice('/v1'.length)
  // The path the router picks, whatever the method: at the first segment where two paths differ,
  // a static segment wins over a parameter (`DELETE /pets/1/photos/order` is the order's path,
  // answered 405, never a photo's removal).
  const [path] = Object.keys(doc.paths)
    .filter((p) => pathPattern(p).test(relative))
    .sort(staticFirst)
  if (path === undefined) return undefined
  const operation = doc.paths[path]![method]
  return operation && { path, operation }
}

const pathPatterns = new Map<string, RegExp>()

/**
 * The URLs a document path answers, as a pattern (made once per path): each `{parameter}` one
 * segment, never empty; with `emptyParameters`, possibly empty, as the router allows
 * (`/projects//keys` reaches the path, for a 400 on the parameter).
 */
export function pathPattern(path: string, { emptyParameters = false } = {}): RegExp {
  const key = `${emptyParameters}\0${path}`
  let pattern = pathPatterns.get(key)
  if (!pattern) {
    pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, emptyParameters ? '[^/]*' : '[^/]+')}$`)
    pathPatterns.set(key, pattern)
  }
  return pattern
}

/** Orders two document paths as the router does: at the first differing segment, a static one first. */
export function staticFirst(a: string, b: string): number {
  const sa = a.split('/')
  const sb = b.split('/')
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith('{')
    const pb = sb[i]!.startsWith('{')
    if (pa !== pb) return pa ? 1 : -1
  }
  return 0
}

/**
 * The compiled validator of a schema in a document added to `ajv`, by reference. Ajv caches it
 * by the reference; `ajv.validate({ $ref })` would compile a new wrapper schema on every call
 * (milliseconds each, which the fuzz tests' thousands of requests notice).
 */
export function validatorOf(ajv: Ajv2020, ref: string): ValidateFunction {
  const validate = ajv.getSchema(ref)
  assert.ok(validate, `no schema at ${ref}`)
  return validate
}

function escape(path: string): string {
  return path.replace(/~/g, '~0').replace(/\//g, '~1').replace(/\{/g, '%7B').replace(/\}/g, '%7D')
}
