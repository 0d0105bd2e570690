import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildSerializer } from '../src/http/serialization.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Opens no database (the serializers): its subject is the same on both back ends.
export const testPlan: TestPlan = { legs: 'sqlite' }

const route = (schema: unknown, url = '/a') => ({ method: 'GET', url, httpStatus: '200', schema })
const pet = () => ({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] })

test('equal schemas share one serializer, whichever route and context asked', () => {
  const first = buildSerializer({}, {})(route(pet(), '/pets'))
  const second = buildSerializer({}, {})(route(pet(), '/other'))
  assert.equal(second, first)
  // It serializes by the schema: undeclared properties are left out.
  assert.equal(first({ id: 1, name: 'Rex', secret: 'x' }), '{"id":1,"name":"Rex"}')
})

test('a different schema, shared schemas or options get a serializer of their own', () => {
  const plain = buildSerializer({}, {})(route(pet()))
  const other = buildSerializer({}, {})(route({ ...pet(), properties: { id: { type: 'integer' } } }))
  assert.notEqual(other, plain)
  assert.equal(other({ id: 1, name: 'Rex' }), '{"id":1}')

  const referring = { $ref: 'Shared#' }
  const one = buildSerializer({ Shared: { $id: 'Shared', ...pet() } }, {})(route(referring))
  const two = buildSerializer({ Shared: { $id: 'Shared', type: 'object', properties: { name: { type: 'string' } } } }, {})(route(referring))
  assert.notEqual(two, one)
  assert.equal(one({ id: 2, name: 'Mia' }), '{"id":2,"name":"Mia"}')
  assert.equal(two({ id: 2, name: 'Mia' }), '{"name":"Mia"}')

  const floor = buildSerializer({}, { rounding: 'floor' })(route({ type: 'object', properties: { n: { type: 'integer' } } }))
  const ceil = buildSerializer({}, { rounding: 'ceil' })(route({ type: 'object', properties: { n: { type: 'integer' } } }))
  assert.equal(floor({ n: 1.5 }), '{"n":1}')
  assert.equal(ceil({ n: 1.5 }), '{"n":2}')
})
