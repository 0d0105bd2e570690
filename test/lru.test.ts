import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SizedLru } from '../src/cache/lru.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Memory only: nothing of the back end is involved.
export const testPlan: TestPlan = { legs: 'sqlite' }

const keys = (lru: SizedLru<string>, all: string[]) => all.filter((key) => lru.get(key) !== undefined)

test('values are kept up to the byte bound, the least recently used going first', () => {
  const lru = new SizedLru<string>(100)
  lru.set('a', 'A', 40)
  lru.set('b', 'B', 40)
  assert.equal(lru.get('a'), 'A', 'reading a makes it the most recently used')
  lru.set('c', 'C', 40)
  assert.equal(lru.get('b'), undefined, 'b, the least recently used, made room')
  assert.equal(lru.get('a'), 'A')
  assert.equal(lru.get('c'), 'C')
})

test('a value set again replaces the old one and its size', () => {
  const lru = new SizedLru<string>(100)
  lru.set('a', 'A', 90)
  lru.set('a', 'A2', 10)
  lru.set('b', 'B', 90)
  assert.deepEqual(keys(lru, ['b', 'a']), ['b', 'a'], '10 + 90 fit: the first 90 was not counted twice')
  lru.set('c', 'C', 10)
  assert.deepEqual(keys(lru, ['a', 'b', 'c']), ['a', 'c'], 'b went (a was read after it), and nothing more than needed')
})

test('a value larger than the bound is not kept, and does not push others out', () => {
  const lru = new SizedLru<string>(100)
  lru.set('a', 'A', 50)
  lru.set('huge', 'H', 101)
  assert.equal(lru.get('huge'), undefined)
  assert.equal(lru.get('a'), 'A')
  lru.clear()
  assert.equal(lru.get('a'), undefined)
  lru.set('b', 'B', 100)
  assert.equal(lru.get('b'), 'B', 'after clear the whole bound is free')
})
