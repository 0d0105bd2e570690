/**
 * The CLI's data commands (`pets …`, `orders …`, built on the typed client) as processes against
 * a running built server. The client itself: client.test.ts.
 */
import assert from 'node:assert/strict'
import { afterEach, before, describe, test } from 'node:test'
import type { Order, Pet } from '../src/client/index.js'
import { runCliOk } from './helpers/cli.js'
import { assertBuilt, cleanup, makeDataDir, runCli, startServer } from './helpers/process.js'

const MINUTE_MS = 60_000

describe('CLI data commands against a running built server', () => {
  before(() => assertBuilt())
  afterEach(cleanup)

  test('pets and orders commands: --json, human output, one-line errors and exit 1', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const key = (JSON.parse(await runCliOk(['keys', 'create', '--project', 'default', '--json'], dataDir)) as { key: string }).key
    // No DATA_DIR, and a service configuration that could not even start a server: the data
    // commands need none of it, only the URL and the key.
    const env = { ADOPTION_STORE_URL: `${server.url}/v1`, ADOPTION_STORE_KEY: key, PORT: 'abc', DATABASE_URL: 'not-a-url', BODY_LIMIT: '-1' }
    const cli = async (args: string[], overrides: Record<string, string | undefined> = {}) => runCli(args, { env: { ...env, ...overrides } })
    const ok = async (args: string[], overrides: Record<string, string | undefined> = {}) => {
      const result = await cli(args, overrides)
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
      assert.equal(result.stderr, '')
      return result.stdout
    }
    const json = async <T>(args: string[]) => JSON.parse(await ok([...args, '--json'])) as T
    const fails = async (args: string[], pattern: RegExp, overrides: Record<string, string | undefined> = {}) => {
      const result = await cli(args, overrides)
      assert.equal(result.code, 1, `${args.join(' ')} should fail: ${result.stdout}`)
      assert.equal(result.stdout, '')
      assert.match(result.stderr, /^adoption-store: [^\n]+\n$/, 'one line on stderr')
      assert.match(result.stderr, pattern)
    }

    const rex = await json<Pet>(['pets', 'create', 'Rex', '--category', '3'])
    assert.deepEqual(rex, { id: rex.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.match(await ok(['pets', 'create', 'Fido', '--category', '1', '--status', 'pending']), /^Created pet \d+: Fido \(category 1, pending\)\n$/)
    // --url and --key instead of the variables.
    const tom = JSON.parse(
      await ok(['pets', 'create', 'Tom', '--category', '2', '--url', server.url, '--key', key, '--json'], { ADOPTION_STORE_URL: undefined, ADOPTION_STORE_KEY: undefined }),
    ) as Pet
    // The same Idempotency-Key twice: one animal.
    const once = await json<Pet>(['pets', 'create', 'Once', '--category', '1', '--idempotency-key', 'cli-once'])
    assert.deepEqual(await json<Pet>(['pets', 'create', 'Once', '--category', '1', '--idempotency-key', 'cli-once']), once)

    // Commands that do not depend on each other run side by side; each is still its own process.
    const [pets, pending, all, human, got] = await Promise.all([
      json<Pet[]>(['pets', 'list']),
      json<Pet[]>(['pets', 'list', '--status', 'pending']),
      json<Pet[]>(['pets', 'list', '--limit', '1', '--all']),
      ok(['pets', 'list', '--limit', '2']),
      json<Pet>(['pets', 'get', String(tom.id)]),
    ])
    assert.deepEqual(pets.map((p) => p.name), ['Rex', 'Fido', 'Tom', 'Once'])
    assert.deepEqual(pending, [pets[1]])
    assert.deepEqual(all, pets)
    assert.match(human, /^ID +NAME +CATEGORY +STATUS\n/)
    assert.match(human, new RegExp(`\\nMore: --after ${pets[1]!.id} for the next page, or --all\\.\\n$`))
    assert.deepEqual(got, tom)
    assert.deepEqual(await json<Pet>(['pets', 'update', String(tom.id), '--name', 'Thomas']), { ...tom, name: 'Thomas' })
    assert.match(await ok(['pets', 'update', String(tom.id), '--category', '5', '--idempotency-key', 'cli-update']), new RegExp(`^Updated pet ${tom.id}: Thomas \\(category 5, available\\)\n$`))
    await fails(['pets', 'update', String(tom.id)], /nothing to change: give --name, --category or both/)
    await fails(['pets', 'update', String(tom.id), '--name', ' '], /"name" must be at least 1 character.*\(invalid_request, HTTP 400\)/)
    assert.deepEqual(await json<{ id: number; removed: boolean }>(['pets', 'delete', String(once.id)]), { id: once.id, removed: true })
    await fails(['pets', 'delete', String(once.id)], /No animal with id \d+ in your project\. \(not_found, HTTP 404\)/)

    const order = await json<Order>(['orders', 'create', String(rex.id)])
    assert.deepEqual(order, { id: order.id, petId: rex.id, status: 'placed', createdAt: order.createdAt, complete: false })
    // The rest of Rex's order's life, and Tom's order (the second) cancelled, side by side.
    const [, second] = await Promise.all([
      (async () => {
        await fails(['orders', 'create', String(rex.id)], /Animal \d+ is pending, not available.*\(pet_unavailable, HTTP 409\)/)
        assert.match(await ok(['orders', 'approve', String(order.id)]), new RegExp(`^Order ${order.id} for pet ${rex.id}: approved`))
        await fails(['orders', 'approve', String(order.id)], /\(invalid_transition, HTTP 409\)/)
        assert.deepEqual(await json<Order>(['orders', 'deliver', String(order.id)]), { ...order, status: 'delivered', complete: true })
        await fails(['orders', 'cancel', String(order.id)], /only placed or approved orders can be cancelled.*\(invalid_transition, HTTP 409\)/)
      })(),
      (async () => {
        const second = await json<Order>(['orders', 'create', String(tom.id)])
        assert.equal((await json<Order>(['orders', 'cancel', String(second.id)])).status, 'cancelled')
        assert.deepEqual(await json<Order>(['orders', 'get', String(second.id)]), { ...second, status: 'cancelled' })
        return second
      })(),
    ])
    const [orders, cancelled, humanOrders, sold] = await Promise.all([
      json<Order[]>(['orders', 'list']),
      json<Order[]>(['orders', 'list', '--status', 'cancelled', '--all']),
      ok(['orders', 'list']),
      json<Pet[]>(['pets', 'list', '--status', 'sold']),
      fails(['pets', 'get', '999999'], /^adoption-store: No animal with id 999999 in your project\. \(not_found, HTTP 404\)\n$/),
      fails(['pets', 'get', 'abc'], /"abc" is not an id/),
      fails(['pets', 'list'], /\(unauthorized, HTTP 401\)/, { ADOPTION_STORE_KEY: 'as_live_wrong' }),
      fails(['pets', 'list'], /no API key: pass --key or set ADOPTION_STORE_KEY/, { ADOPTION_STORE_KEY: undefined }),
      fails(['pets', 'list'], /not a URL/, { ADOPTION_STORE_URL: 'nowhere' }),
      (async () => {
        const invalid = await cli(['pets', 'list', '--limit', '0'])
        assert.equal(invalid.code, 1)
        assert.match(invalid.stderr, /a whole number of at least 1/)
      })(),
    ])
    assert.deepEqual(orders.map((o) => [o.id, o.status]), [[order.id, 'delivered'], [second.id, 'cancelled']])
    assert.deepEqual(cancelled, [{ ...second, status: 'cancelled' }])
    assert.match(humanOrders, /^ID +PET +STATUS +COMPLETE +CREATED\n/)
    assert.deepEqual(sold.map((p) => p.id), [rex.id])

    // The server saw all of it: what the CLI created is there, once, but for the one it removed.
    const final = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
    assert.deepEqual(((await final.json()) as Pet[]).map((p) => p.id), [rex.id, pets[1]!.id, tom.id])
  })

  test('a ban is reported with its end, at once', { timeout: 60_000 }, async () => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const keyOf = async (project: string, plan: string[]) => {
      await runCliOk(['projects', 'create', project, ...plan], dataDir)
      return (JSON.parse(await runCliOk(['keys', 'create', '--project', project, '--json'], dataDir)) as { key: string }).key
    }
    const [key, plain] = await Promise.all([keyOf('tiny', ['--plan', 'enterprise', '--per-minute', '1', '--per-day', '1000']), keyOf('roomy', ['--plan', 'pro'])])
    // 1 admitted, 30 refused, and the next is banned (a minute boundary in between starts the count again).
    let banned = false
    for (let i = 0; i < 80 && !banned; i++) {
      const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
      banned = ((await response.json()) as { code?: string }).code === 'api_key_banned'
    }
    assert.ok(banned)
    // Beside it, at the same moment, a command with a key in good standing: how long a command
    // takes on this machine just now, start-up included, to compare with.
    const cli = (apiKey: string, args: string[]) => runCli(args, { env: { ADOPTION_STORE_URL: server.url, ADOPTION_STORE_KEY: apiKey } })
    const [result, control] = await Promise.all([cli(key, ['pets', 'create', 'Rex', '--category', '1']), cli(plain, ['pets', 'list'])])
    assert.equal(control.code, 0, control.stderr)
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^adoption-store: This API key is banned until (\S+) .*\(api_key_banned, HTTP 429; banned until \S+\)\n$/)
    const until = Date.parse(/banned until (\S+)\)\n$/.exec(result.stderr)![1]!)
    assert.ok(until > Date.now() + 9 * MINUTE_MS && until <= Date.now() + 10 * MINUTE_MS + 2_000)
    assert.ok(result.ms < control.ms + 5_000, `no waiting for a ban: ${Math.round(result.ms)} ms, a plain command ${Math.round(control.ms)} ms`)
  })
})
