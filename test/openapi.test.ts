import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { LightMyRequestResponse } from 'fastify'
import { generateOpenApiDocuments } from '../scripts/openapi-documents.js'
import { assertMatchesContract } from './helpers/contract.js'
import { bearer, createTestApp } from './helpers/app.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The documents and the answers' shapes, the same on both back ends (docs/decisions.md).
export const testPlan: TestPlan = { legs: 'sqlite' }

interface Doc {
  servers: { url: string; description: string }[]
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown>; deprecated?: boolean; 'x-deprecated-sunset'?: string; security?: unknown[] }>>
  components: { securitySchemes: Record<string, { type: string; scheme: string }> }
}

const committed = JSON.parse(fs.readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Doc

test('the committed openapi.json and openapi.admin.json are what the routes generate (run `npm run openapi` after changing a route)', async () => {
  const generated = await generateOpenApiDocuments()
  for (const [file, document] of Object.entries(generated)) {
    const onDisk: unknown = JSON.parse(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))
    assert.deepEqual(JSON.parse(JSON.stringify(document)), onDisk, `${file} differs from what the routes generate: run \`npm run openapi\``)
  }
})

test('both documents are valid OpenAPI 3.1', async () => {
  for (const file of ['openapi.json', 'openapi.admin.json']) {
    const validator = new Validator()
    const document: unknown = JSON.parse(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))
    const result = await validator.validate(document as Parameters<Validator['validate']>[0])
    assert.equal(validator.version, '3.1', file)
    assert.ok(result.valid, `${file}: ${JSON.stringify(result.errors, null, 2)}`)
  }
})

test('servers list this service relatively first, then production and staging, each ending in /v1, from the configuration', async () => {
  const t = await createTestApp({ config: { publicBaseUrl: 'https://api.example.test/v1', stagingBaseUrl: 'https://staging.example.test/v1' } })
  try {
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json<Doc>()
    assert.deepEqual(doc.servers, [
      { url: '/v1', description: 'This service (the host this document was read from)' },
      { url: 'https://api.example.test/v1', description: 'Production' },
      { url: 'https://staging.example.test/v1', description: 'Staging' },
    ])
  } finally {
    await t.close()
  }
})

test('every operation has an operationId, bearer security and its scope, and documents 401, 403, 500 and 503', () => {
  const { description, ...scheme } = committed.components.securitySchemes.bearerAuth as unknown as { description: string }
  assert.deepEqual(scheme, { type: 'http', scheme: 'bearer' })
  assert.match(description, /^An API key: `as_live_…` in production, `as_test_…` in staging\. A key made with scopes/)
  const operations = Object.values(committed.paths).flatMap((item) => Object.values(item))
  assert.ok(operations.length >= 3)
  for (const operation of operations) {
    assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/)
    assert.deepEqual(operation.security, [{ bearerAuth: [] }], operation.operationId)
    assert.match(String((operation as { 'x-scopes'?: string[] })['x-scopes']), /^(pets|orders):(read|write)$/, `${operation.operationId} names its scope`)
    for (const status of ['401', '403', '500', '503']) assert.ok(operation.responses[status], `${operation.operationId} documents ${status}`)
  }
})

test('getPet is deprecated with its sunset, and the others are not', () => {
  const getPet = committed.paths['/pets/{petId}']?.get
  assert.equal(getPet?.deprecated, true)
  assert.equal(getPet?.['x-deprecated-sunset'], '2030-12-05')
  assert.equal(committed.paths['/pets']?.get?.deprecated, undefined)
})

test('the contract check rejects undocumented statuses, wrong bodies and non-envelope errors', async () => {
  const t = await createTestApp()
  try {
    const { key } = await t.project()
    const real = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
    const fake = (statusCode: number, body: unknown, contentType = 'application/json; charset=utf-8') =>
      ({ ...real, statusCode, headers: { 'content-type': contentType }, body: JSON.stringify(body), json: () => body }) as LightMyRequestResponse
    const check = (response: LightMyRequestResponse) => () => assertMatchesContract(t.app, { method: 'GET', url: '/v1/pets' }, response)
    assert.doesNotThrow(check(fake(200, [{ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }])))
    assert.throws(check(fake(418, { code: 'teapot', message: 'no', status: 418 })), /not documented/)
    assert.throws(check(fake(200, [{ id: 1, name: 'Rex' }])), /does not match/)
    assert.throws(check(fake(200, [{ id: 1, name: 'Rex', categoryId: 1, status: 'adopted' }])), /does not match/)
    assert.throws(check(fake(400, { error: 'Bad Request' })), /not an Error envelope/)
    assert.throws(check(fake(400, { code: 'invalid_request', message: 'x', status: 401 })), /differs/)
    assert.throws(check(fake(400, { code: 'invalid_request', message: 'x', status: 400 }, 'text/plain')), /content type/)
  } finally {
    await t.close()
  }
})

interface Schema {
  type?: string | string[]
  enum?: unknown[]
  $ref?: string
  maxItems?: number
  examples?: unknown[]
  [keyword: string]: unknown
}
interface Operation {
  operationId: string
  parameters?: { name: string; in: string; example?: unknown; examples?: object; schema?: Schema }[]
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown; examples?: object }> }
}
interface FullDoc {
  info: { contact?: { name?: string; email?: string; url?: string }; license?: { name: string; identifier?: string; url?: string } }
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

const documents = Object.fromEntries(
  ['openapi.json', 'openapi.admin.json'].map((file) => [file, JSON.parse(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')) as FullDoc]),
)

/** Every schema object of a document, with where it is. */
function* schemasOf(value: unknown, where = '#'): Generator<[string, Schema]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* schemasOf(item, `${where}/${i}`)
  } else if (value && typeof value === 'object') {
    const node = value as Schema
    if ('enum' in node || 'type' in node || '$ref' in node) yield [where, node]
    for (const [key, item] of Object.entries(node)) yield* schemasOf(item, `${where}/${key}`)
  }
}

for (const [file, doc] of Object.entries(documents)) {
  test(`${file}: MIT license and a contact in info, as package.json says`, () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { license: string }
    assert.equal(doc.info.license?.identifier, pkg.license)
    assert.equal(doc.info.license?.name, pkg.license)
    assert.ok(doc.info.contact?.name, 'info.contact names who answers for the API')
  })

  test(`${file}: every enum says its type`, () => {
    for (const [where, schema] of schemasOf(doc)) {
      if (!Array.isArray(schema.enum)) continue
      const types = new Set(schema.enum.map((value) => (value === null ? 'null' : typeof value)))
      assert.ok(schema.type, `${where}: enum ${JSON.stringify(schema.enum)} without a type`)
      for (const type of types) assert.ok([schema.type].flat().includes(type), `${where}: ${type} values in an enum of type ${String(schema.type)}`)
    }
  })

  test(`${file}: every parameter and every request body carries an example`, () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const parameter of operation.parameters ?? []) {
          assert.ok(parameter.example !== undefined || parameter.examples, `${method.toUpperCase()} ${path}: parameter ${parameter.name} (${parameter.in}) has no example`)
        }
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          assert.ok(media.example !== undefined || media.examples, `${method.toUpperCase()} ${path}: the ${type} request body has no example`)
        }
      }
    }
  })

  test(`${file}: a request body that is a named shape refers to its component instead of copying it`, () => {
    const named = Object.entries(doc.components.schemas)
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const schema = operation.requestBody?.content['application/json']?.schema
        if (!schema) continue
        const copied = named.find(([, component]) => JSON.stringify(component) === JSON.stringify(schema))
        assert.equal(copied, undefined, `${method.toUpperCase()} ${path}: the body copies ${copied?.[0]}; refer to it`)
      }
    }
  })
}

test('a page (Pets, Orders) holds at most 100 items, the largest limit', () => {
  const { components, paths } = documents['openapi.json']!
  const limits = ['/pets', '/store/orders'].map((path) => paths[path]!.get!.parameters!.find((p) => p.name === 'limit')!.schema!)
  for (const name of ['Pets', 'Orders']) {
    assert.equal(components.schemas[name]?.type, 'array', name)
    for (const limit of limits) assert.equal(components.schemas[name]?.maxItems, limit.maximum, `${name}: maxItems is the largest limit`)
  }
  assert.deepEqual(paths['/pets']!.post!.requestBody!.content['application/json']!.schema, { $ref: '#/components/schemas/NewPet' })
  assert.deepEqual(paths['/store/orders']!.post!.requestBody!.content['application/json']!.schema, { $ref: '#/components/schemas/NewOrder' })
})
