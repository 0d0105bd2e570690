import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { CompiledQuery, sql } from 'kysely'
import { migrateToLatest, migratorOf, openDatabase } from '../src/db/database.js'
import { loadConfig } from '../src/config.js'
import { SqliteConnections } from '../src/db/sqlite.js'
import { BUSY_TIMEOUT_MS } from '../src/db/sqlite-file.js'
import { migrations } from '../src/db/migrations/index.js'
import { insertDomain, saveDomainCheck } from '../src/domains/domains.repository.js'
import { insertApiKey, findKeyByHash } from '../src/keys/keys.repository.js'
import { insertProject } from '../src/projects/projects.repository.js'
import { listPets, searchPets } from '../src/pets/pets-search.repository.js'
import { deletePet, findPet, insertPet } from '../src/pets/pets.repository.js'
import { dialects, freshPostgresDatabase, postgresUrl, withDatabase } from './helpers/databases.js'
import { monotonicMs } from '../src/clock.js'

const at = '2026-11-22T12:00:00.000Z'

test('SQLite runs in WAL mode with synchronous=FULL', async () => {
  const sqlite = dialects.find((d) => d.name === 'sqlite')!
  const { handle, drop } = await sqlite.create()
  try {
    const journal = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(handle.db)
    const synchronous = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(handle.db)
    const foreignKeys = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(handle.db)
    assert.equal(journal.rows[0]?.journal_mode, 'wal')
    assert.equal(synchronous.rows[0]?.synchronous, 2, 'FULL')
    assert.equal(foreignKeys.rows[0]?.foreign_keys, 1)
  } finally {
    await drop()
  }
})

test('PostgreSQL: the service plans for solid-state storage unless the database says otherwise', { skip: !postgresUrl && 'PostgreSQL is not configured (TEST_DATABASE_URL)' }, async () => {
  const database = await freshPostgresDatabase()
  const randomPageCost = async () => {
    const handle = openDatabase(loadConfig({}, { DATABASE_URL: database.url }))
    try {
      // Two connections at once: the setting is made on every connection, not on the first.
      const [a, b] = await handle.db.connection().execute(async (first) =>
        Promise.all([sql<{ random_page_cost: string }>`show random_page_cost`.execute(first), sql<{ random_page_cost: string }>`show random_page_cost`.execute(handle.db)]),
      )
      return [a.rows[0]?.random_page_cost, b.rows[0]?.random_page_cost]
    } finally {
      await handle.close()
    }
  }
  try {
    assert.deepEqual(await randomPageCost(), ['1.1', '1.1'], 'the server default (4) is replaced')
    const admin = openDatabase(loadConfig({}, { DATABASE_URL: postgresUrl }))
    await sql.raw(`alter database ${new URL(database.url).pathname.slice(1)} set random_page_cost = 2.5`).execute(admin.db)
    await admin.close()
    assert.deepEqual(await randomPageCost(), ['2.5', '2.5'], "the operator's value for the database is kept")
  } finally {
    await database.drop()
  }
})

test('SQLite reads outside a transaction on a read-only connection, beside an open transaction, which alone sees its writes', { timeout: 10_000 }, async () => {
  const sqlite = dialects.find((d) => d.name === 'sqlite')!
  const { handle, drop } = await sqlite.create()
  try {
    const { db } = handle
    const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
    await db.transaction().execute(async (trx) => {
      await insertPet(trx, a.id, { name: 'Ghost', categoryId: 1, status: 'available', createdAt: at })
      // The transaction holds the writer: a read beside it answers at once, without its row.
      assert.deepEqual(await db.selectFrom('pets').select('name').execute(), [])
      assert.deepEqual(await trx.selectFrom('pets').select('name').execute(), [{ name: 'Ghost' }])
    })
    assert.deepEqual(await db.selectFrom('pets').select('name').execute(), [{ name: 'Ghost' }], 'committed, it is seen outside')
    // A write that reached the reading connection would fail loudly there, not wait for a lock.
    const reading = await sql<{ query_only: number }>`select query_only from pragma_query_only()`.execute(db)
    assert.deepEqual(reading.rows, [{ query_only: 1 }])
    const writing = await sql<{ query_only: number }>`PRAGMA query_only`.execute(db)
    assert.deepEqual(writing.rows, [{ query_only: 0 }], 'pragmas run on the writer')
  } finally {
    await drop()
  }
})

test('SQLite databases opened in turn share writer threads: a closed one refuses work, each writes to its own file only', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'writer-threads-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const rows = (name: string) => {
    const file = new SQLite(path.join(dir, name), { readonly: true })
    try {
      return file.prepare('select v from t order by rowid').pluck().all()
    } finally {
      file.close()
    }
  }
  const write = (connections: SqliteConnections, ...values: string[]) =>
    connections.executeAll(values.map((v) => ({ sql: 'insert into t (v) values (?)', parameters: [v] })))

  const first = new SqliteConnections(path.join(dir, 'first.db'))
  await first.execute('create table t (v text)', [])
  await write(first, 'first')
  await first.close()
  // Its thread now serves the next database: a late write of the closed one must not land there.
  const second = new SqliteConnections(path.join(dir, 'second.db'))
  await assert.rejects(write(first, 'late'), /closed/)
  await assert.rejects(first.execute('insert into t (v) values (?)', ['late']), /closed/)
  await second.execute('create table t (v text)', [])
  // Two open at once, each on a thread of its own.
  const again = new SqliteConnections(path.join(dir, 'first.db'))
  await Promise.all([write(second, 'second'), write(again, 'again')])
  await again.execute('insert into t (v) values (?)', ['again, alone'])
  await Promise.all([second.close(), again.close()])
  assert.deepEqual(rows('first.db'), ['first', 'again', 'again, alone'])
  assert.deepEqual(rows('second.db'), ['second'])
})

test("SQLite writes inline (a command's): the same answers on this thread, a foreign lock waited for until the bound, nothing after closing", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inline-writes-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'inline.db')
  const inline = new SqliteConnections(file, { inlineWrites: true })
  await inline.execute('create table t (v text)', [])
  const insert = (v: string) => ({ sql: 'insert into t (v) values (?) returning v', parameters: [v] })
  assert.deepEqual(await inline.executeAll([insert('a'), insert('b')]), [[{ v: 'a' }], [{ v: 'b' }]])
  assert.deepEqual((await inline.execute('select v from t order by rowid', [])).rows, [{ v: 'a' }, { v: 'b' }])

  // Another connection holds the write lock: the write waits what is left of its bound (300 ms
  // here), then fails as busy, and the holder's release lets the next one through.
  const holder = new SQLite(file)
  holder.exec('begin immediate')
  const started = performance.now()
  // On this thread, the wait holds the event loop: a timer due meanwhile fires only after it.
  let timerFired = false
  setTimeout(() => (timerFired = true), 50)
  await assert.rejects(inline.executeAll([insert('blocked')], monotonicMs() - BUSY_TIMEOUT_MS + 300), (error: { code?: string }) => error.code === 'SQLITE_BUSY')
  const waited = performance.now() - started
  assert.equal(timerFired, false, 'the write waited on this thread')
  assert.ok(waited >= 250 && waited < BUSY_TIMEOUT_MS, `waited ${Math.round(waited)} ms for a lock, with 300 ms of its bound left`)
  holder.exec('rollback')
  holder.close()
  await inline.execute('insert into t (v) values (?)', ['after'])
  await inline.close()
  await assert.rejects(inline.execute('insert into t (v) values (?)', ['late']), /closed/)

  const reader = new SQLite(file, { readonly: true })
  t.after(() => reader.close())
  assert.deepEqual(reader.prepare('select v from t order by rowid').pluck().all(), ['a', 'b', 'after'])
})

for (const dialect of dialects) {
  describe(`repositories on ${dialect.name}`, () => {
    test('migrations are recorded and a second run applies nothing', async () => {
      await withDatabase(dialect, async (handle) => {
        const again = await migrateToLatest(handle.db)
        assert.deepEqual(again.results, [])
        const applied = await handle.db.selectFrom('schema_migrations' as never).select('name' as never).orderBy('name' as never).execute()
        assert.deepEqual(applied, Object.keys(migrations).map((name) => ({ name })))
        assert.ok(applied.length >= 2)
      })
    })

    test('pets are scoped by project and listed in ascending id order', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const a = await insertProject(db, { slug: 'a', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const b = await insertProject(db, { slug: 'b', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const mine = [
          await insertPet(db, a.id, { name: 'Rex', categoryId: 9007199254740991, status: 'available', createdAt: at }),
          await insertPet(db, a.id, { name: 'Mia', categoryId: 2, status: 'sold', createdAt: at }),
        ]
        const theirs = await insertPet(db, b.id, { name: 'Max', categoryId: 3, status: 'available', createdAt: at })
        assert.equal(typeof mine[0]?.id, 'number')
        assert.equal(mine[0]?.categoryId, 9007199254740991, 'int64 values up to 2^53-1 come back exact, as numbers')
        assert.deepEqual(
          (await listPets(db, a.id, { limit: 10 })).map((p) => p.name),
          ['Rex', 'Mia'],
        )
        assert.deepEqual(
          (await listPets(db, a.id, { limit: 10, status: 'sold' })).map((p) => p.name),
          ['Mia'],
        )
        assert.deepEqual(
          (await listPets(db, a.id, { limit: 10, after: mine[0]!.id })).map((p) => p.name),
          ['Mia'],
        )
        assert.equal(await findPet(db, a.id, theirs.id), undefined, "another project's pet is not found")
        assert.equal((await findPet(db, b.id, theirs.id))?.name, 'Max')
      })
    })

    test('migration 0009 keeps every order, id and trigger, drops the cascade from animals to orders, and folds existing names', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const project = await insertProject(db, { slug: 'shelter', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const pet = async (name: string, status: 'available' | 'pending' | 'sold') =>
          (await db.insertInto('pets').values({ project_id: project.id, name, category_id: 1, status, created_at: at }).returning('id').executeTakeFirstOrThrow()).id
        const order = async (petId: number, status: 'placed' | 'delivered' | 'cancelled') =>
          (await db.insertInto('orders').values({ project_id: project.id, pet_id: petId, status, created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow()).id
        const rex = await pet('Rex', 'sold')
        const arger = await pet('ÄRGER Ǆemal', 'pending')
        await order(rex, 'delivered')
        await order(arger, 'placed')
        // The last order was deleted: its id must not be given again.
        await db.deleteFrom('orders').where('id', '=', await order(rex, 'cancelled')).execute()
        const before = await db.selectFrom('orders').select(['id', 'project_id', 'pet_id', 'status', 'created_at', 'updated_at']).orderBy('id').execute()

        await migrateToLatest(db)
        const after = await db.selectFrom('orders').selectAll().orderBy('id').execute()
        // Later migrations add columns, empty for these orders (0017: the site's enquiry).
        const added = { pet_name: null, enquiry_name: null, enquiry_email: null, enquiry_phone: null, enquiry_message: null }
        assert.deepEqual(after, before.map((row) => ({ ...row, ...added })), 'every order as it was')
        assert.deepEqual(
          await db.selectFrom('pets').select(['name', 'name_folded']).orderBy('id').execute(),
          [
            { name: 'Rex', name_folded: 'rex' },
            { name: 'ÄRGER Ǆemal', name_folded: 'ärger ǆemal' },
          ],
        )
        assert.ok(await deletePet(db, project.id, rex))
        assert.equal(
          (await db.selectFrom('orders').select('id').where('pet_id', '=', rex).execute()).length,
          1,
          "the removed animal's delivered order is kept",
        )
        const next = await order(arger, 'placed')
        assert.ok(next > Math.max(...before.map((row) => row.id)) + 1, `a new order takes a new id (${next})`)
        if (dialect.name === 'sqlite') {
          // The cache generation triggers on orders were re-created with the table.
          const generation = async () => Number((await db.selectFrom('cache_generations').select('value').where('scope', '=', `data:${project.id}`).executeTakeFirst())?.value ?? 0)
          const was = await generation()
          await order(arger, 'cancelled')
          assert.equal(await generation(), was + 1)
        }
      }, { upTo: '0008-audit-and-user-states' })
    })

    test(
      "migration 0024: a webhook endpoint's or subscription's change no longer moves the auth cache generation; a plan's still does",
      { skip: dialect.name === 'postgres' && 'PostgreSQL deployments keep their generations in Redis, without triggers' },
      async () => {
        await withDatabase(
          dialect,
          async ({ db }) => {
            const project = await insertProject(db, { slug: 'shelter', plan: 'free', perMinute: null, perDay: null, createdAt: at })
            const auth = async () => Number((await db.selectFrom('cache_generations').select('value').where('scope', '=', 'auth').executeTakeFirst())?.value ?? 0)
            // Every change the triggers watched: an endpoint added, subscribed, disabled, removed (its subscription with it).
            const endpointLife = async (id: string) => {
              const endpoint = { id, project_id: project.id, url: 'https://example.com/hook', description: null, enabled: 1, disabled_reason: null, secret: 'sealed', previous_secret: null, previous_secret_until: null, failing_since: null, created_at: at, updated_at: at }
              await db.insertInto('webhook_endpoints').values(endpoint).execute()
              await db.insertInto('webhook_subscriptions').values({ endpoint_id: id, event_type: '*' }).execute()
              await db.updateTable('webhook_endpoints').set({ enabled: 0 }).where('id', '=', id).execute()
              await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute()
            }
            const before = await auth()
            await endpointLife('ep_before')
            assert.equal(await auth(), before + 5, 'before 0024, each of the five changes moved it')

            await migrateToLatest(db)
            const after = await auth()
            await endpointLife('ep_after')
            assert.equal(await auth(), after, 'after 0024, none does')
            await db.updateTable('projects').set({ plan: 'pro' }).where('id', '=', project.id).execute()
            assert.equal(await auth(), after + 1, "a plan's change still does")
          },
          { upTo: '0023-webhook-events' },
        )
      },
    )

    test('migration 0022 keeps every audit entry and id, then takes API-key and anonymous actors with the key\'s id', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const entry = (actor_kind: string, action: string) =>
          ({ at, actor_kind, actor_user_id: null, actor_name: actor_kind, action, target_type: 'project', target_id: 'shelter', project_id: null, request_id: null, details: '{}' }) as never
        for (const kind of ['user', 'admin_token', 'cli', 'system']) await db.insertInto('audit_entries').values(entry(kind, 'project.created')).execute()
        // The last entry was deleted: its id must not be given again.
        const last = await db.insertInto('audit_entries').values(entry('cli', 'key.created')).returning('id').executeTakeFirstOrThrow()
        await db.deleteFrom('audit_entries').where('id', '=', last.id).execute()
        const before = await db.selectFrom('audit_entries').selectAll().orderBy('id').execute()
        assert.equal(before.length, 4)

        await migrateToLatest(db)
        const after = await db.selectFrom('audit_entries').selectAll().orderBy('id').execute()
        assert.deepEqual(after, before.map((row) => ({ ...row, actor_key_id: null })), 'every entry as it was')
        const keyed = await db
          .insertInto('audit_entries')
          .values({ ...(entry('api_key', 'pet.created') as object), actor_key_id: 'key_abc' } as never)
          .returning('id')
          .executeTakeFirstOrThrow()
        assert.ok(keyed.id > last.id, `a new entry takes a new id (${keyed.id})`)
        await db.insertInto('audit_entries').values(entry('anonymous', 'session.sign_in_failed')).execute()
        await assert.rejects(db.insertInto('audit_entries').values(entry('robot', 'pet.created')).execute(), 'the check still holds')
        assert.deepEqual(await db.selectFrom('audit_entries').select(['actor_kind', 'actor_key_id']).where('actor_key_id', '=', 'key_abc').execute(), [{ actor_kind: 'api_key', actor_key_id: 'key_abc' }])
      }, { upTo: '0021-read-only-role' })
    })

    test('migration 0013 indexes every word with its project: animals written before are found in their project only, and later writes follow', async () => {
      await withDatabase(dialect, async ({ db }) => {
        // Projects 1 and 12: no word of one may be taken for a word of the other ("p1q2…" and "p12q…").
        const projects = []
        for (let n = 1; n <= 12; n++) projects.push(await insertProject(db, { slug: `p${n}`, plan: 'free', perMinute: null, perDay: null, createdAt: at }))
        const [one, twelve] = [projects[0]!, projects[11]!]
        const write = async (projectId: number, name: string, searchText: string) =>
          (await db.insertInto('pets').values({ project_id: projectId, name, name_folded: name.toLowerCase(), category_id: 1, status: 'available', created_at: at, updated_at: at, search_text: searchText }).returning('id').executeTakeFirstOrThrow()).id
        const rex = await write(one.id, 'Rex', 'rex 2friendly')
        const max = await write(twelve.id, 'Max', 'max friendly')

        await migrateToLatest(db)
        const found = async (projectId: number, words: string[]) =>
          (await searchPets(db, dialect.name, projectId, { q: words }, { by: 'id' }, 10)).map((pet) => pet.name)
        assert.deepEqual(await found(one.id, ['2friend']), ['Rex'])
        assert.deepEqual(await found(one.id, ['friend']), [], 'a word of project 12 is not a word of project 1')
        assert.deepEqual(await found(twelve.id, ['friend']), ['Max'])
        assert.deepEqual(await found(twelve.id, ['2friend']), [])

        // Writes after the migration: a change of text moves the animal's words, a removal drops them.
        const mia = await write(one.id, 'Mia', 'mia quiet')
        assert.deepEqual(await found(one.id, ['quiet']), ['Mia'])
        await db.updateTable('pets').set({ search_text: 'mia lively' }).where('id', '=', mia).execute()
        assert.deepEqual(await found(one.id, ['quiet']), [])
        assert.deepEqual(await found(one.id, ['lively']), ['Mia'])
        await db.deleteFrom('pets').where('id', '=', rex).execute()
        assert.deepEqual(await found(one.id, ['2friend']), [])
        assert.ok(max > 0)

        // The filters the index holds beside the words follow every change of the row: a status
        // changed by an order, a new sex and location.
        const place = (await db.insertInto('locations').values({ project_id: one.id, name: 'Barn', created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow()).id
        const filtered = async (search: Omit<Parameters<typeof searchPets>[3], 'q'>) =>
          (await searchPets(db, dialect.name, one.id, { q: ['lively'], ...search }, { by: 'id' }, 10)).map((pet) => pet.name)
        assert.deepEqual(await filtered({ statuses: ['available'], categoryIds: [1] }), ['Mia'])
        await db.updateTable('pets').set({ status: 'pending' }).where('id', '=', mia).execute()
        assert.deepEqual(await filtered({ statuses: ['available'] }), [])
        assert.deepEqual(await filtered({ statuses: ['available', 'pending'] }), ['Mia'])
        await db.updateTable('pets').set({ sex: 'female', size: 'extra_large', location_id: place }).where('id', '=', mia).execute()
        assert.deepEqual(await filtered({ sexes: ['female'], sizes: ['extra_large'], locationIds: [place] }), ['Mia'])
        assert.deepEqual(await filtered({ sexes: ['male'] }), [])
        assert.deepEqual(await filtered({ categoryIds: [2] }), [])

        if (dialect.name === 'postgres') {
          // The search's condition is the index's expression, to the letter: PostgreSQL can use it.
          const captured: CompiledQuery[] = []
          const spy = db.withPlugin({
            transformQuery: ({ node, queryId }) => {
              captured.push(db.getExecutor().compileQuery(node, queryId))
              return node
            },
            transformResult: async ({ result }) => result,
          })
          await searchPets(spy, 'postgres', one.id, { q: ['lively'], statuses: ['pending'] }, { by: 'id' }, 10)
          // Its full-text condition alone, where nothing but that index could help.
          const search = captured.find((query) => query.sql.includes('to_tsvector'))!
          const [condition, n] = /to_tsvector\(.*\) @@ to_tsquery\('simple'::regconfig, \$(\d+)\)/.exec(search.sql) ?? []
          assert.ok(condition && n, search.sql)
          const plan = await db.transaction().execute(async (trx) => {
            await sql`set local enable_seqscan = off`.execute(trx)
            const text = `explain select id from pets where ${condition.replace(`$${n}`, '$1')}`
            return (await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(text, [search.parameters[Number(n) - 1]]))).rows
          })
          assert.match(plan.map((row) => row['QUERY PLAN']).join('\n'), /pets_search_idx/)
        }

        if (dialect.name === 'postgres') {
          // Undone and done again on PostgreSQL, the search answers the same.
          const migrator = migratorOf(db)
          const down = await migrator.migrateTo('0012-animal-profiles')
          assert.equal(down.error, undefined)
          assert.ok(down.results?.some((result) => result.migrationName === '0013-search-per-project' && result.direction === 'Down'))
          assert.equal((await migrator.migrateToLatest()).error, undefined)
          assert.deepEqual(await found(one.id, ['lively']), ['Mia'])
          assert.deepEqual(await found(twelve.id, ['friend']), ['Max'])
        } else {
          // The index is consistent in itself (its entries are scoped words, not the content table's text).
          await sql`insert into pets_fts (pets_fts) values ('integrity-check')`.execute(db)
        }
      }, { upTo: '0012-animal-profiles' })
    })

    test('migration 0015: a search word finds the animals whose words it starts, written before or after, however many words it starts or animals match', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const project = await insertProject(db, { slug: 'words', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        const other = await insertProject(db, { slug: 'other', plan: 'free', perMinute: null, perDay: null, createdAt: at })
        let second = 0
        const write = async (name: string, searchText: string, projectId = project.id, trx: typeof db = db) => {
          const created = new Date(Date.parse(at) + 1000 * ++second).toISOString()
          const row = { project_id: projectId, name, name_folded: name.toLowerCase(), category_id: 1, status: 'available' as const, created_at: created, updated_at: created, search_text: searchText }
          return (await trx.insertInto('pets').values(row).returning('id').executeTakeFirstOrThrow()).id
        }
        await write('Rex', 'rex friendly')
        await write('Bella', 'bella friendlier')
        await write('Otto', 'otto friendship', other.id)

        await migrateToLatest(db)
        const found = async (words: string[], order: Parameters<typeof searchPets>[4] = { by: 'id' }, limit = 100) =>
          (await searchPets(db, dialect.name, project.id, { q: words }, order, limit)).map((pet) => pet.name)
        assert.deepEqual(await found(['friend']), ['Rex', 'Bella'], 'words written before the migration')
        assert.deepEqual(await found(['friendlie']), ['Bella'])
        assert.deepEqual(await found(['friendship']), [], "another project's word")
        assert.deepEqual(await found(['friend', 'zebra']), [], 'a word that starts none')

        // Written after: a new animal's words and a changed text's new words.
        const mia = await write('Mia', 'mia friendship')
        assert.deepEqual(await found(['friend']), ['Rex', 'Bella', 'Mia'])
        await db.updateTable('pets').set({ search_text: 'mia quiet' }).where('id', '=', mia).execute()
        assert.deepEqual(await found(['qui']), ['Mia'])
        assert.deepEqual(await found(['friends']), [], 'the old text no longer matches')

        // A word that starts more words than a search asks for one by one (40 "tag…" words).
        for (let n = 0; n < 40; n++) await write(`T${n}`, `tag${n}`)
        assert.equal((await found(['tag'])).length, 40)
        assert.deepEqual(await found(['tag1']), ['T1', ...Array.from({ length: 10 }, (_, n) => `T${10 + n}`)])

        // Many animals match (more than a page is read from, on SQLite, by id): sorted by date and
        // by name with the words, the same pages as the order of every match.
        for (let n = 0; n < 520; n++) await write(`C${String(n).padStart(3, '0')}`, `common ${n % 2 === 0 ? 'even' : 'odd'}`)
        const newest = (await db.selectFrom('pets').select('name').where('project_id', '=', project.id).where('search_text', 'like', 'common%').orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map((row) => row.name)
        assert.deepEqual(await found(['common'], { by: 'createdAt', descending: true }, 20), newest.slice(0, 20))
        assert.deepEqual(await found(['common', 'odd'], { by: 'name' }, 5), ['C001', 'C003', 'C005', 'C007', 'C009'])
        const page = await searchPets(db, dialect.name, project.id, { q: ['common'] }, { by: 'createdAt', descending: true }, 20)
        const last = page.at(-1)!
        const next = await searchPets(db, dialect.name, project.id, { q: ['common'] }, { by: 'createdAt', descending: true, after: { value: String(last.sortValue), id: last.id } }, 20)
        assert.deepEqual(next.map((pet) => pet.name), newest.slice(20, 40))

        if (dialect.name === 'postgres') {
          // The words are asked of the index as the words they start; a word that starts too many, as a prefix.
          const tsqueries: string[] = []
          const spy = db.withPlugin({
            transformQuery: ({ node, queryId }) => {
              const compiled = db.getExecutor().compileQuery(node, queryId)
              const n = /@@ to_tsquery\('simple'::regconfig, \$(\d+)\)/.exec(compiled.sql)?.[1]
              if (n) tsqueries.push(String(compiled.parameters[Number(n) - 1]))
              return node
            },
            transformResult: async ({ result }) => result,
          })
          await searchPets(spy, 'postgres', project.id, { q: ['friend', 'tag'] }, { by: 'id' }, 10)
          // (Mia's former "friendship" is still asked: a word is never removed, and matches nothing.)
          assert.deepEqual(tsqueries, [`('p${project.id}qfriendlier' | 'p${project.id}qfriendly' | 'p${project.id}qfriendship') & 'p${project.id}qtag':*`])

          // Writers adding the same new words in opposite orders do not wait for each other.
          await db.transaction().execute(async (first) => {
            await write('Ann', 'alpha beta', project.id, first)
            await db.transaction().execute(async (second) => {
              await sql`set local lock_timeout = '2s'`.execute(second)
              await write('Bob', 'beta alpha', project.id, second)
            })
          })
          assert.deepEqual(await found(['alpha']), ['Ann', 'Bob'])
          assert.deepEqual(await found(['bet']), ['Ann', 'Bob'])
        }
      }, { upTo: '0013-search-per-project' })
    })

    test('of concurrent saves of one DNS check outcome, exactly one moves the domain into it (the one that reports it)', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const project = await insertProject(db, { slug: 'shop', plan: 'pro', perMinute: null, perDay: null, createdAt: at })
        const domain = await insertDomain(db, { projectId: project.id, name: 'shop.example.test', apex: false, at })
        const checked = { state: 'failed' as const, reason: 'no CNAME record', checked_at: at }
        // Verify beside background re-checks: each its own transaction, at once.
        const saves = await Promise.all(Array.from({ length: 3 }, () => db.transaction().execute((trx) => saveDomainCheck(trx, domain.id, checked))))
        assert.deepEqual(saves.map((saved) => saved?.moved).sort(), [false, false, true])
        assert.ok(saves.every((saved) => saved?.row.state === 'failed' && saved.row.reason === 'no CNAME record'))
        assert.equal((await saveDomainCheck(db, domain.id, checked))?.moved, false, 'checked again: already failed')
        assert.equal((await saveDomainCheck(db, domain.id, { ...checked, state: 'verified', reason: null }))?.moved, true)
        assert.equal(await saveDomainCheck(db, domain.id, checked, { holder: 'a-holder-without-the-lease', checks: 0 }), undefined, 'a lost lease saves nothing')
      })
    })

    test('keys are found by hash with their project and plan; hashes are unique', async () => {
      await withDatabase(dialect, async ({ db }) => {
        const project = await insertProject(db, { slug: 'e', plan: 'enterprise', perMinute: 5, perDay: 50, createdAt: at })
        const row = { id: 'key_1', project_id: project.id, prefix: 'as_live_abcd', hash: 'f'.repeat(64), name: null, created_at: at, last_used_at: null, expires_at: null, revoked_at: null, scopes: null, publishable: 0, allowed_origins: null }
        await insertApiKey(db, row)
        const found = await findKeyByHash(db, 'f'.repeat(64))
        assert.deepEqual(
          { slug: found?.slug, plan: found?.plan, perMinute: found?.per_minute, perDay: found?.per_day },
          { slug: 'e', plan: 'enterprise', perMinute: 5, perDay: 50 },
        )
        await assert.rejects(insertApiKey(db, { ...row, id: 'key_2' }), 'a duplicate hash is refused')
      })
    })
  })
}
