/**
 * Route schemas compile at their first use (src/http/first-use.ts), so a schema that does not
 * compile would otherwise show only at the first request that needs it: here every schema the
 * app's routes declare is compiled, and the check is shown to catch one that does not compile.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileEverySchema } from '../src/http/first-use.js'
import { buildSerializer } from '../src/http/serialization.js'
import { validatorCompiler } from '../src/http/validation.js'
import type { TestPlan } from '../scripts/test-plan.js'
import { createTestApp } from './helpers/app.js'

// The schemas are the same whichever database the app opens.
export const testPlan: TestPlan = { legs: 'sqlite' }

test("every schema of the app's routes compiles: request parts and answers", async () => {
  const t = await createTestApp()
  try {
    assert.doesNotThrow(() => compileEverySchema())
    // Compiled and kept: the answers still validate and serialize.
    const response = await t.request({ method: 'GET', url: '/v1/pets?limit=x', headers: { authorization: `Bearer ${(await t.project()).key}` } })
    assert.equal(response.statusCode, 400, response.body)
    assert.match(response.json<{ message: string }>().message, /limit/)
  } finally {
    await t.close()
  }
})

test('a schema that does not compile is reported by the check, and not before its first use', () => {
  const route = { method: 'POST', url: '/broken', httpPart: 'body' }
  // Built as Fastify builds them at start-up: nothing is compiled yet, so nothing throws.
  const validate = validatorCompiler({ ...route, schema: { type: 'object', properties: { n: { type: 'integr' } } } })
  const serialize = buildSerializer({}, {})({ method: 'GET', url: '/broken', httpStatus: '200', schema: { type: 'object', properties: { n: { $ref: '#/definitions/missing' } } } })
  assert.throws(() => compileEverySchema(), /schema is invalid: data\/properties\/n\/type/)
  assert.throws(() => validate({ n: 1 }), /integr|data\/properties\/n\/type/, 'its first use throws what compiling throws')
  assert.throws(() => serialize({ n: 1 }), /missing/)
  assert.throws(() => compileEverySchema(), /integr|data\/properties\/n\/type|missing/, 'still reported: a schema that does not compile stays waiting')
})
