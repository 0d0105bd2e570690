import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { prepare } from '../src/db/prepared.js'
import { insertPet } from '../src/pets/pets.repository.js'
import { insertProject } from '../src/projects/projects.repository.js'
import { dialects, withDatabase } from './helpers/databases.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Mostly waits: a foreign transaction held open while a prepared query runs.
export const testPlan: TestPlan = { lane: 'waiting' }

const at = '2026-11-22T12:00:00.000Z'

// One argument, one constant: both must land in the right SQL parameter.
const namesWithStatus = prepare((db, projectId: number, limit: number) =>
  db.selectFrom('pets').select('name').where('project_id', '=', projectId).where('status', '=', 'sold').orderBy('id').limit(limit),
)
const names = prepare((db, projectId: number) => db.selectFrom('pets').select('name').where('project_id', '=', projectId).orderBy('id'))

for (const dialect of dialects) {
  describe(`prepared queries on ${dialect.name}`, () => {
    test('arguments and constants reach their parameters, call after call', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const b = await insertProject(db, { slug: 'b', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        for (const [project, name, status] of [[a, 'Rex', 'sold'], [a, 'Mia', 'available'], [a, 'Max', 'sold'], [b, 'Bo', 'sold']] as const) {
          await insertPet(db, project.id, { name, categoryId: 1, status, createdAt: at })
        }
        assert.deepEqual(await namesWithStatus(db, a.id, 10), [{ name: 'Rex' }, { name: 'Max' }])
        assert.deepEqual(await namesWithStatus(db, a.id, 1), [{ name: 'Rex' }])
        assert.deepEqual(await namesWithStatus(db, b.id, 10), [{ name: 'Bo' }])
        // The builder's own answer, for comparison.
        const built = await db.selectFrom('pets').select('name').where('project_id', '=', a.id).where('status', '=', 'sold').orderBy('id').execute()
        assert.deepEqual(await namesWithStatus(db, a.id, 10), built)
      })
    })

    test('in a transaction, a prepared query runs on the transaction and sees its writes', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const seen = await db.transaction().execute(async (trx) => {
          await insertPet(trx, a.id, { name: 'Rex', categoryId: 1, status: 'sold', createdAt: at })
          return names(trx, a.id)
        })
        assert.deepEqual(seen, [{ name: 'Rex' }])
      })
    })

    test('outside a transaction, a prepared query never sees its uncommitted writes, even when it runs meanwhile', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        await insertPet(db, a.id, { name: 'Mia', categoryId: 1, status: 'available', createdAt: at })
        let outside: Promise<{ name: string }[]> | undefined
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            await insertPet(trx, a.id, { name: 'Ghost', categoryId: 1, status: 'sold', createdAt: at })
            // Asked while the transaction is open (on SQLite it holds the only connection).
            outside = names(db, a.id)
            await new Promise((resolve) => setTimeout(resolve, 20))
            throw new Error('roll back')
          }),
          /roll back/,
        )
        assert.deepEqual(await outside, [{ name: 'Mia' }], 'the rolled-back animal was never visible outside its transaction')
        assert.deepEqual(await names(db, a.id), [{ name: 'Mia' }])
      })
    })

    test('batched writes made together each get their own row back, and a bad one fails alone', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const missingProject = 424242
        const wanted = Array.from({ length: 20 }, (_, i) => `Pet ${i}`)
        const outcomes = await Promise.allSettled(
          wanted.map((name, i) => insertPet(db, i === 7 ? missingProject : a.id, { name, categoryId: i + 1, status: 'available', createdAt: at })),
        )
        assert.equal(outcomes[7]?.status, 'rejected', 'the animal of a missing project is refused')
        const created = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
        assert.deepEqual(
          created.map((pet) => [pet.name, pet.categoryId]),
          wanted.flatMap((name, i) => (i === 7 ? [] : [[name, i + 1]])),
          'each caller gets its own animal',
        )
        assert.equal(new Set(created.map((pet) => pet.id)).size, 19)
        const stored = await db.selectFrom('pets').select(['id', 'name']).orderBy('id').execute()
        assert.deepEqual(stored.map((row) => row.id).sort((x, y) => x - y), created.map((pet) => pet.id).sort((x, y) => x - y))
      })
    })

    test('batched writes against a locked database all fail together, with one wait and no retries', { skip: dialect.name !== 'sqlite' && 'PostgreSQL does not batch' }, async () => {
      const { handle, drop } = await dialect.create()
      const other = new SQLite(handle.location)
      try {
        const a = await insertProject(handle.db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        // Another connection (the CLI, say) holds the write lock past the busy timeout.
        other.exec('BEGIN IMMEDIATE')
        const outcomes = await Promise.allSettled(
          Array.from({ length: 5 }, (_, i) => insertPet(handle.db, a.id, { name: `Pet ${i}`, categoryId: 1, status: 'available', createdAt: at })),
        )
        other.exec('ROLLBACK')
        const errors = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }) : undefined))
        assert.ok(errors.every((e) => e?.code === 'SQLITE_BUSY'), `every create answers busy: ${JSON.stringify(errors.map((e) => e?.code))}`)
        // Retried one by one, each would wait out the busy timeout again and fail with its own error.
        assert.equal(new Set(errors).size, 1, 'the whole batch fails with the one error of its one attempt')
        assert.equal((await handle.db.selectFrom('pets').select('id').execute()).length, 0)
      } finally {
        other.close()
        await drop()
      }
    })

    test('a failing prepared query rejects with the database error', async () => {
      await withDatabase(dialect, async (handle) => {
        const missingProject = 424242
        await assert.rejects(insertPet(handle.db, missingProject, { name: 'Rex', categoryId: 1, status: 'sold', createdAt: at }), (error: { code?: string }) => {
          assert.match(String(error.code), /^(SQLITE_CONSTRAINT_FOREIGNKEY|23503)$/)
          return true
        })
      })
    })
  })
}
