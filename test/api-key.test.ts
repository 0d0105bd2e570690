import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import { SQLITE_FILE } from '../src/db/database.js'
import { DISPLAY_LENGTH, generateApiKey, hashApiKey, KEY_PREFIXES, parseApiKey } from '../src/auth/api-key.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import { eventually } from './helpers/wait.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

describe('generateApiKey', () => {
  test('format and prefixes per environment', () => {
    assert.deepEqual({ ...KEY_PREFIXES }, { production: 'as_live_', staging: 'as_test_' })
    for (const [environment, prefix] of [
      ['production', 'as_live_'],
      ['staging', 'as_test_'],
    ] as const) {
      const key = generateApiKey(environment)
      assert.match(key.secret, new RegExp(`^${prefix}[0-9A-Za-z]{28}_[0-9A-Za-z]{6}$`))
      assert.equal(key.prefix, key.secret.slice(0, prefix.length + 4), 'the display prefix is the prefix and 4 characters')
      assert.equal(key.hash, hashApiKey(key.secret))
      assert.deepEqual(parseApiKey(key.secret, environment), { ok: true, hash: key.hash })
    }
  })

  test('at least 128 bits of randomness, even to someone who sees the listed prefix', () => {
    const randomLength = 28
    const shown = DISPLAY_LENGTH - 'as_live_'.length
    assert.ok((randomLength - shown) * Math.log2(62) >= 128)
    const counts = new Map<string, number>()
    const keys = Array.from({ length: 1000 }, () => generateApiKey('production').secret)
    for (const key of keys) {
      const random = key.slice('as_live_'.length, 'as_live_'.length + randomLength)
      assert.equal(random.length, randomLength)
      for (const char of random) counts.set(char, (counts.get(char) ?? 0) + 1)
    }
    assert.deepEqual([...counts.keys()].sort().join(''), [...ALPHABET].sort().join(''), 'all 62 symbols occur')
    // Chi-squared against the uniform distribution (61 degrees of freedom): ~61 expected;
    // 130 is far beyond chance (p < 1e-6) but well below what a modulo bias would give (~220).
    const expected = (keys.length * randomLength) / ALPHABET.length
    const chiSquared = [...counts.values()].reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0)
    assert.ok(chiSquared < 130, `chi-squared ${chiSquared.toFixed(1)}: the characters are not uniform`)
  })

  test('1,000 generated keys are all distinct, in random part and in hash', () => {
    const keys = Array.from({ length: 1000 }, () => generateApiKey('production'))
    assert.equal(new Set(keys.map((key) => key.secret)).size, 1000)
    assert.equal(new Set(keys.map((key) => key.secret.slice(8, 32))).size, 1000)
    assert.equal(new Set(keys.map((key) => key.hash)).size, 1000)
  })
})

describe('parseApiKey', () => {
  test('every single-character substitution at every position is rejected', () => {
    const key = generateApiKey('production').secret
    const reasons = new Map<string, number>()
    let variants = 0
    for (let i = 0; i < key.length; i++) {
      for (const char of `${ALPHABET}_-.+/= `) {
        if (char === key[i]) continue
        const mutated = key.slice(0, i) + char + key.slice(i + 1)
        const parsed = parseApiKey(mutated, 'production')
        assert.equal(parsed.ok, false, `accepted ${mutated} (position ${i} changed to "${char}")`)
        if (parsed.ok) continue
        assert.ok(parsed.reason === 'checksum' || parsed.reason === 'malformed', `${mutated}: ${parsed.reason}`)
        reasons.set(parsed.reason, (reasons.get(parsed.reason) ?? 0) + 1)
        variants++
      }
    }
    assert.ok(variants > 2000, `${variants} variants`)
    // Typos in the random part and the checksum are caught by the checksum, the rest by the shape.
    assert.ok((reasons.get('checksum') ?? 0) >= 30 * 61, `checksum: ${reasons.get('checksum')}`)
    assert.ok((reasons.get('malformed') ?? 0) > 0)
  })

  test('swapped neighbours, a dropped or an added character are rejected', () => {
    const key = generateApiKey('production').secret
    for (let i = 8; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2)
      assert.equal(parseApiKey(swapped, 'production').ok, false, swapped)
    }
    for (let i = 0; i < key.length; i++) {
      assert.deepEqual(parseApiKey(key.slice(0, i) + key.slice(i + 1), 'production'), { ok: false, reason: 'malformed' })
      assert.deepEqual(parseApiKey(key.slice(0, i) + 'a' + key.slice(i), 'production'), { ok: false, reason: 'malformed' })
    }
  })

  test('a key of the other environment is refused with the reason "environment"', () => {
    assert.deepEqual(parseApiKey(generateApiKey('staging').secret, 'production'), { ok: false, reason: 'environment' })
    assert.deepEqual(parseApiKey(generateApiKey('production').secret, 'staging'), { ok: false, reason: 'environment' })
  })

  test('surrounding text or whitespace makes a key malformed', () => {
    const key = generateApiKey('production').secret
    for (const text of [` ${key}`, `${key} `, `${key}\n`, `Bearer ${key}`, key.toUpperCase(), '', 'as_live_']) {
      assert.deepEqual(parseApiKey(text, 'production'), { ok: false, reason: 'malformed' }, JSON.stringify(text))
    }
  })
})

describe('hashApiKey', () => {
  test('is SHA-256 as lowercase hex', () => {
    assert.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    const key = generateApiKey('staging')
    assert.match(key.hash, /^[0-9a-f]{64}$/)
    assert.equal(key.hash, createHash('sha256').update(key.secret).digest('hex'))
  })
})

describe('storage never holds a secret', () => {
  let t: TestApp

  beforeEach(async () => {
    t = await createTestApp({ clock: new ManualClock() })
  })
  afterEach(async () => {
    await t.close()
  })

  test('no column of any table, nor the database files, contain a secret key', async () => {
    const owner = await t.project()
    const other = await t.project({ plan: 'pro' })
    const named = await t.key(owner.slug, { name: 'ci' })
    const expiring = await t.key(owner.slug, { expiresInMs: 3_600_000 })
    const revoked = await t.key(other.slug)
    assert.ok((await t.app.services.keys.revoke(revoked.id, commandLineChange())).ok)
    const secrets = [owner.key, other.key, named.secret, expiring.secret, revoked.secret]

    // Use the keys, so that last-used times, animals and stored idempotent responses exist too.
    for (const secret of [owner.key, other.key, named.secret, expiring.secret]) {
      const created = await t.request({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...bearer(secret), 'idempotency-key': `order-${secret.slice(8, 12)}` },
        payload: { name: 'Rex', categoryId: 1 },
      })
      assert.equal(created.statusCode, 201, created.body)
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(secret) })).statusCode, 200)
    }
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(revoked.secret) })).statusCode, 401)
    // The four keys that were accepted have their last use written in the background: wait for it.
    const lastUsed = () => t.database.db.selectFrom('api_keys').select('id').where('last_used_at', 'is not', null).execute()
    await eventually('the last use of the four accepted keys is stored', async () => (await lastUsed()).length === 4)

    // Every row of every table, read through the database's own catalogue (either dialect).
    const cells: string[] = []
    const rows: Record<string, number> = {}
    const tables = await t.database.db.introspection.getTables({ withInternalKyselyTables: true })
    assert.ok(tables.some((table) => table.name === 'api_keys'))
    for (const { name } of tables) {
      const all = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(t.database.db)).rows
      rows[name] = all.length
      for (const row of all) for (const value of Object.values(row)) cells.push(Buffer.isBuffer(value) ? value.toString('latin1') : String(value))
    }
    assert.equal(rows.api_keys, secrets.length, 'every key was stored')
    assert.ok((rows.idempotency_keys ?? 0) >= 4, 'idempotent responses were stored')
    for (const secret of secrets) {
      const random = secret.slice(8, 32)
      for (const cell of cells) {
        assert.ok(!cell.includes(random), `a column holds the secret ${secret}: ${cell}`)
      }
      assert.ok(cells.includes(hashApiKey(secret)), 'its hash is what is stored')
    }

    // And not in the bytes of the files either (free pages, indexes, the write-ahead log).
    if (t.database.dialect !== 'sqlite') return
    const files = fs.readdirSync(t.config.dataDir).filter((name) => name.startsWith(SQLITE_FILE))
    assert.ok(files.length > 0)
    for (const name of files) {
      const bytes = fs.readFileSync(path.join(t.config.dataDir, name))
      for (const secret of secrets) assert.equal(bytes.indexOf(secret.slice(8, 32)), -1, `${name} contains ${secret}`)
    }
  })
})
