/**
 * The suite's plan (scripts/test-plan.ts): which leg runs each file. A file declaring
 * `legs: 'either'` runs once, in the leg with the least work so far, counted from the durations.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Durations, placeEitherFiles, planLeg, readTestPlan, type TestPlan, testFiles } from '../scripts/test-plan.js'

// Runs no app and opens no database (the runner's arithmetic): once.
export const testPlan: TestPlan = { legs: 'sqlite' }

type Plans = Map<string, Required<TestPlan>>
const busy = (legs: Required<TestPlan>['legs']): Required<TestPlan> => ({ legs, lane: 'busy' })

describe('files that run in either leg', () => {
  // SQLite has 40 s of work of its own (20 + 20), PostgreSQL 10 s.
  const plans: Plans = new Map([
    ['both', busy('both')],
    ['sqlite-only', busy('sqlite')],
    ['page-a', busy('either')],
    ['page-b', busy('either')],
    ['page-c', busy('either')],
  ])
  const durations: Durations = { both: { sqlite: 20, postgres: 10 }, 'sqlite-only': { sqlite: 20 }, 'page-a': { sqlite: 24 }, 'page-b': { postgres: 12 }, 'page-c': { sqlite: 4 } }
  const files = [...plans.keys()]

  test('go, longest first, each to the leg with the least work so far', () => {
    const placed = placeEitherFiles(['sqlite', 'postgres'], files, plans, durations, 1)
    // page-a (24 s) to PostgreSQL (10 → 34), page-b (12 s) there too (34 → 46), page-c (4 s) to SQLite (40 → 44).
    assert.deepEqual(Object.fromEntries(placed), { 'page-a': 'postgres', 'page-b': 'postgres', 'page-c': 'sqlite' })
  })

  test('run in the leg they were placed in, and in no other', () => {
    const placed = placeEitherFiles(['sqlite', 'postgres'], files, plans, durations, 1)
    const sqlite = planLeg('sqlite', files, plans, durations, placed)
    const postgres = planLeg('postgres', files, plans, durations, placed)
    assert.deepEqual(sqlite.busy, ['both', 'sqlite-only', 'page-c'])
    // Longest first, a file by its duration in the other leg when it has none in this one.
    assert.deepEqual(postgres.busy, ['page-a', 'page-b', 'both'])
  })

  test('all run in the SQLite leg when it is the only one', () => {
    const placed = placeEitherFiles(['sqlite'], files, plans, durations, 1)
    assert.deepEqual([...new Set(placed.values())], ['sqlite'])
    assert.deepEqual(planLeg('sqlite', files, plans, durations, placed).busy.filter((file) => file.startsWith('page')), ['page-a', 'page-b', 'page-c'])
  })

  test('a busy file weighs its seconds over the concurrency, a serial one all of them', () => {
    const serialPlans: Plans = new Map([
      ['serial', { legs: 'sqlite', lane: 'serial' }],
      ['both', busy('both')],
      ['page', busy('either')],
    ])
    const weights: Durations = { serial: { sqlite: 10 }, both: { sqlite: 20, postgres: 30 }, page: { sqlite: 6 } }
    // SQLite: 10 + 20/2 = 20; PostgreSQL: 30/2 = 15. At one at a time, SQLite 30 and PostgreSQL 30: the first leg wins a tie.
    assert.equal(placeEitherFiles(['sqlite', 'postgres'], [...serialPlans.keys()], serialPlans, weights, 2).get('page'), 'postgres')
    assert.equal(placeEitherFiles(['sqlite', 'postgres'], [...serialPlans.keys()], serialPlans, weights, 1).get('page'), 'sqlite')
  })
})

test("the suite's browser files run in either leg, and every file's plan reads", () => {
  const plans = new Map(testFiles().map((file) => [file, readTestPlan(file)]))
  const browser = [...plans.keys()].filter((file) => file.endsWith('-browser.test.ts'))
  assert.ok(browser.length > 0)
  for (const file of browser) assert.equal(plans.get(file)?.legs, 'either', file)
})
