import assert from 'node:assert/strict'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp, type TestAppOptions } from './app.js'
import { compiledContract, jsonOf, pathPattern, staticFirst, validatorOf } from './contract.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop'

/**
 * An app for the admin API: the operator token set, and custom domains configured without any
 * DNS (verifications ask a resolver where nothing answers, and fail at once, which is still an
 * answer). Its background domain worker is stopped: nothing changes behind the test's back.
 */
export async function createAdminApp(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp({
    ...options,
    config: {
      adminToken: ADMIN_TOKEN,
      platformDomain: 'platform.test',
      platformDnsTarget: 'edge.platform.test',
      dnsResolvers: ['127.0.0.1:9'],
      domainWorkerIntervalMs: 3_600_000,
      ...options.config,
    },
  })
  await t.app.domains.worker.stop()
  return t
}

interface Operation {
  operationId: string
  responses: Record<string, { content?: Record<string, unknown> }>
}
interface AdminDoc {
  paths: Record<string, Record<string, Operation>>
}

interface AdminContract {
  doc: AdminDoc
  ajv: Ajv2020
}

const contracts = new WeakMap<FastifyInstance, AdminContract>()

async function contractOf(app: FastifyInstance): Promise<AdminContract> {
  let contract = contracts.get(app)
  if (!contract) {
    const response = await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    assert.equal(response.statusCode, 200, `the admin document: ${response.body}`)
    contract = compiledContract<AdminDoc>(jsonOf(response), 'admin')
    contracts.set(app, contract)
  }
  return contract
}

/**
 * Checks an admin API response against the admin OpenAPI document (`/admin/v1/openapi.json`):
 * the status is documented for the operation, and a JSON body matches its schema.
 */
export async function assertMatchesAdminContract(app: FastifyInstance, method: string, url: string, response: LightMyRequestResponse): Promise<void> {
  const { doc, ajv } = await contractOf(app)
  const pathname = new URL(url, 'http://localhost').pathname
  const where = `${method} ${pathname} -> ${response.statusCode}`
  // A HEAD answers as its GET is documented to, without a body.
  const head = method.toUpperCase() === 'HEAD'
  if (head) {
    assert.equal(response.body, '', `${where}: a HEAD answer has no body`)
    method = 'GET'
  }
  assert.ok(pathname.startsWith('/admin/v1/'), `${where}: not an admin path`)
  const relative = pathname.slice('/admin/v1'.length)
  // The path the router picks whatever the method (a static segment wins over a parameter), then its method's operation.
  const [path] = Object.keys(doc.paths)
    .filter((p) => pathPattern(p).test(relative))
    .sort(staticFirst)
  const match = path === undefined ? undefined : { path, operation: doc.paths[path]![method.toLowerCase()] }
  if (!match?.operation) return
  const documented = match.operation.responses[String(response.statusCode)]
  assert.ok(documented, `${where}: status ${response.statusCode} is not documented for ${match.operation.operationId}`)
  if (documented.content?.['application/json'] && !head) {
    const pointer = `admin#/paths/${match.path.replace(/~/g, '~0').replace(/\//g, '~1').replace(/\{/g, '%7B').replace(/\}/g, '%7D')}/${method.toLowerCase()}/responses/${response.statusCode}/content/application~1json/schema`
    const validate = validatorOf(ajv, pointer)
    assert.ok(validate(jsonOf(response)), `${where}: body does not match the documented schema: ${ajv.errorsText(validate.errors)}\n${response.body}`)
  }
}

/** Calls the admin API with the operator token, checked against both documents' rules. */
export async function admin(t: TestApp, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, token = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  const response = await t.request({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  })
  await assertMatchesAdminContract(t.app, method, `/admin/v1${url}`, response)
  return response
}
