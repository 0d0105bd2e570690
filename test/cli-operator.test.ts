/**
 * Operator commands (`runCli`) against a running server on the same data: projects, keys,
 * revocation, plans, bans; and what a command says when Redis cannot be told of its change.
 * (The CLI's start-up, shutdown and configuration: cli.test.ts.)
 */
import assert from 'node:assert/strict'
import { afterEach, before, describe, test } from 'node:test'
import type { ApiKey } from '../src/keys/keys.service.js'
import { PLAN_LIMITS } from '../src/limits/plans.js'
import { api, assertCliError, assertRecentIso, KEY, type Pet, type Project } from './helpers/cli.js'
import { redisUrl } from './helpers/redis.js'
import { assertBuilt, cleanup, cliJson, deleteRedisKeys, makeDataDir, processDialect, runCli, startServer, uniqueRedisPrefix, waitForWindowRoom } from './helpers/process.js'

before(() => assertBuilt())
afterEach(cleanup)

describe('operator commands against a running server', () => {
  test('projects, keys and revocation take effect on the running API', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const cli = { dataDir }

    // Projects.
    const acme = await cliJson<Project>(['projects', 'create', 'acme', '--plan', 'pro', '--json'], cli)
    assert.equal(acme.slug, 'acme')
    assert.equal(acme.plan, 'pro')
    assert.deepEqual(acme.limits, PLAN_LIMITS.pro)
    assert.ok(Number.isInteger(acme.id))
    assertRecentIso(acme.createdAt, 'project createdAt')
    const listed = await cliJson<Project[]>(['projects', 'list', '--json'], cli)
    assert.deepEqual(listed.map((p) => p.slug).sort(), ['acme', 'default'])
    assert.deepEqual(
      listed.find((p) => p.slug === 'acme'),
      acme,
    )

    // A key, used on the running server.
    const created = await cliJson<ApiKey & { key: string }>(['keys', 'create', '--project', 'acme', '--name', 'ci', '--json'], cli)
    const secret = created.key
    assert.match(secret, /^as_live_[0-9A-Za-z]{28}_[0-9A-Za-z]{6}$/)
    assert.equal(typeof created.id, 'string')
    assert.ok(created.id.length > 0)
    assert.equal(created.project, 'acme')
    assert.equal(created.name, 'ci')
    assert.ok(created.prefix.length > 'as_live_'.length && created.prefix.length < secret.length && secret.startsWith(created.prefix))
    assertRecentIso(created.createdAt, 'key createdAt')
    assert.equal(created.expiresAt, null)
    assert.equal(created.revokedAt, null)

    const post = await api<Pet>(server, 'POST', '/v1/pets', secret, { name: 'Rex', categoryId: 3 })
    assert.equal(post.status, 201, JSON.stringify(post.body))
    assert.deepEqual(post.body, { id: post.body.id, name: 'Rex', categoryId: 3, status: 'available' })
    const pets = await api<Pet[]>(server, 'GET', '/v1/pets', secret)
    assert.equal(pets.status, 200)
    assert.deepEqual(pets.body, [post.body])

    // Listing never shows the secret.
    const list = await runCli(['keys', 'list', '--project', 'acme', '--json'], cli)
    assert.equal(list.code, 0, list.stderr)
    const keys = JSON.parse(list.stdout) as Record<string, unknown>[]
    assert.deepEqual(
      keys.map((k) => [k.id, k.prefix, k.name]),
      [[created.id, created.prefix, 'ci']],
    )
    assert.ok(!list.stdout.includes(secret), 'keys list printed the secret')
    assert.ok(!list.stdout.includes(secret.slice(created.prefix.length)), 'keys list printed part of the secret beyond its prefix')
    assert.doesNotMatch(list.stdout, KEY)
    assert.ok(
      keys.every((k) => !('key' in k) && !('secret' in k) && !('hash' in k)),
      list.stdout,
    )

    // Revocation applies to the very next request.
    const revoked = await cliJson<ApiKey>(['keys', 'revoke', created.id, '--json'], cli)
    assert.equal(revoked.id, created.id)
    assertRecentIso(revoked.revokedAt, 'revokedAt')
    const refused = await api<{ code: string; message: string; status: number }>(server, 'GET', '/v1/pets', secret)
    assert.equal(refused.status, 401)
    assert.equal(refused.body.code, 'unauthorized')
    assert.equal(refused.body.status, 401)
    assert.match(refused.body.message, /revoked/i)
    assert.ok(refused.body.message.includes(revoked.revokedAt ?? '-'), refused.body.message)
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/)

    // Plan changes: refused ones change nothing. (Commands that do not depend on each other run
    // side by side; each is still its own process.)
    const [noLimits, noSuchProject] = await Promise.all([runCli(['projects', 'set-plan', 'acme', 'enterprise'], cli), runCli(['projects', 'set-plan', 'nope', 'free'], cli)])
    assertCliError(noLimits, /per-minute/, 'enterprise without limits')
    assertCliError(noSuchProject, /nope/, 'unknown project')
    const unchanged = await cliJson<Project[]>(['projects', 'list', '--json'], cli)
    assert.deepEqual(
      unchanged.find((p) => p.slug === 'acme'),
      acme,
    )
    const enterprise = await cliJson<Project>(['projects', 'set-plan', 'acme', 'enterprise', '--per-minute', '5000', '--per-day', '100000', '--json'], cli)
    assert.deepEqual(enterprise, { ...acme, plan: 'enterprise', limits: { perMinute: 5000, perDay: 100_000 } })
    const after = await cliJson<Project[]>(['projects', 'list', '--json'], cli)
    assert.deepEqual(
      after.find((p) => p.slug === 'acme'),
      enterprise,
    )

    // Key creation and its errors, side by side: the last listing shows that the refused ones
    // created nothing.
    const tooLongLifetimes = ['100000w', '3651d', '522w']
    const [noProject, expiring, banana, ...tooLong] = await Promise.all([
      runCli(['keys', 'create', '--project', 'nope'], cli),
      cliJson<ApiKey & { key: string }>(['keys', 'create', '--project', 'acme', '--expires-in', '1d', '--json'], cli),
      runCli(['keys', 'create', '--project', 'acme', '--expires-in', 'banana', '--json'], cli),
      ...tooLongLifetimes.map((lifetime) => runCli(['keys', 'create', '--project', 'acme', '--expires-in', lifetime, '--json'], cli)),
    ])
    assert.equal(noProject.code, 1, noProject.stderr)
    assertCliError(noProject, /nope/, 'keys create for an unknown project')

    assert.ok(expiring.expiresAt, 'expiresAt is set')
    const lifetime = Date.parse(expiring.expiresAt) - Date.parse(expiring.createdAt)
    assert.ok(Math.abs(lifetime - 86_400_000) < 1_000, `expires ${lifetime} ms after creation`)
    const works = await api(server, 'GET', '/v1/pets', expiring.key)
    assert.equal(works.status, 200)

    assert.notEqual(banana.code, 0, 'an unparseable --expires-in is rejected')
    assert.notEqual(banana.code, null)
    assert.match(banana.stderr, /expires-in|banana/)
    assert.doesNotMatch(banana.stdout, /as_live_/)
    // A lifetime is bounded like the admin API's (3650 days): 100000w is a mistake, not a plan.
    tooLong.forEach((result, i) => {
      assert.equal(result.code, 1, `--expires-in ${tooLongLifetimes[i]} is refused`)
      assert.match(result.stderr, /at most 3650 days/)
      assert.doesNotMatch(result.stdout, /as_live_/)
    })
    const finalKeys = await cliJson<ApiKey[]>(['keys', 'list', '--project', 'acme', '--json'], cli)
    assert.deepEqual(
      finalKeys.map((k) => k.id).sort(),
      [created.id, expiring.id].sort(),
      'the rejected command created no key',
    )

    assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.describe())
  })

  test('keys create --scope and --publishable --origin make keys that the running API holds to', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir()
    const server = await startServer({ dataDir })
    const cli = { dataDir }
    await cliJson<Project>(['projects', 'create', 'shelter', '--json'], cli)
    const full = await cliJson<ApiKey & { key: string }>(['keys', 'create', '--project', 'shelter', '--json'], cli)
    const reader = await cliJson<ApiKey & { key: string }>(['keys', 'create', '--project', 'shelter', '--scope', 'pets:read', '--scope', 'orders:read', '--json'], cli)
    assert.deepEqual([reader.scopes, reader.publishable, reader.allowedOrigins], [['pets:read', 'orders:read'], false, []])
    const web = await cliJson<ApiKey & { key: string }>(['keys', 'create', '--project', 'shelter', '--publishable', '--origin', 'https://shelter.example', '--json'], cli)
    assert.deepEqual([web.scopes, web.publishable, web.allowedOrigins], [['pets:read'], true, ['https://shelter.example']])

    assert.equal((await api(server, 'GET', '/v1/pets', reader.key)).status, 200)
    const refused = await api<{ code: string; message: string }>(server, 'POST', '/v1/pets', reader.key, { name: 'Rex', categoryId: 1 })
    assert.deepEqual([refused.status, refused.body.code], [403, 'insufficient_scope'])
    assert.match(refused.body.message, /pets:write/)
    assert.equal((await api(server, 'POST', '/v1/pets', full.key, { name: 'Rex', categoryId: 1 })).status, 201)
    const page = await fetch(new URL('/v1/pets', server.url), { headers: { authorization: `Bearer ${web.key}`, origin: 'https://shelter.example' } })
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('access-control-allow-origin'), 'https://shelter.example')

    const listed = await cliJson<ApiKey[]>(['keys', 'list', '--project', 'shelter', '--json'], cli)
    assert.deepEqual(listed.map((k) => [k.id, k.scopes, k.publishable]).sort(), [
      [full.id, null, false],
      [reader.id, ['pets:read', 'orders:read'], false],
      [web.id, ['pets:read'], true],
    ].sort())
    const table = await runCli(['keys', 'list', '--project', 'shelter'], cli)
    assert.match(table.stdout, /SCOPES/)
    assert.match(table.stdout, /pets:read \(publishable\)/)

    for (const [args, message] of [
      [['--scope', 'pets:admin'], /Unknown scope "pets:admin" in "scopes"/],
      [['--publishable'], /allowedOrigins/],
      [['--publishable', '--origin', 'http://shelter.example'], /allowedOrigins\[0\]/],
      [['--publishable', '--origin', 'https://shelter.example', '--scope', 'pets:write'], /read-only/],
    ] as const) {
      const result = await runCli(['keys', 'create', '--project', 'shelter', ...args], cli)
      assert.equal(result.code, 1, args.join(' '))
      assertCliError(result, message, `keys create ${args.join(' ')}`)
      assert.doesNotMatch(result.stdout, KEY)
    }
  })
})

describe('a change Redis cannot be told of', () => {
  // A port nothing listens on: the announcement fails at once.
  const unreachable = { REDIS_URL: 'redis://127.0.0.1:1' }

  test('is committed, and the command says when the servers will see it (PostgreSQL); the embedded store needs no announcement', { timeout: 60_000 }, async () => {
    const dataDir = makeDataDir()
    const cli = { dataDir, env: unreachable }
    const run = async (args: string[]) => {
      const result = await runCli(args, cli)
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
      return result.stderr
    }
    // On PostgreSQL, one line per announcement that failed: what failed, and when servers see the change.
    const warned = (stderr: string, ...whens: string[]) => {
      const expected = processDialect === 'postgres' ? whens : []
      const lines = stderr.split('\n').filter(Boolean)
      assert.equal(lines.length, expected.length, stderr)
      lines.forEach((line, i) => assert.equal(line.replace(/\(.+\);/, '(…);'), `warning: Redis not told of the change (…); ${expected[i]}`))
    }
    const KEYS_AND_PLANS = 'servers apply it within 1 s'
    const DATA = "servers' cached reads may lag until their next change"

    // A new project changes nothing a server has read.
    warned(await run(['projects', 'create', 'quiet', '--json']))
    // A plan: servers read plans and keys again within a second.
    warned(await run(['projects', 'set-plan', 'quiet', 'pro', '--json']), KEYS_AND_PLANS)
    // A project's data: its cached reads stay until its next change.
    warned(await run(['locations', 'add', 'Main shelter', '--project', 'quiet', '--json']), DATA)

    // The changes are in the store.
    const [project] = (await cliJson<Project[]>(['projects', 'list', '--json'], cli)).filter((p) => p.slug === 'quiet')
    assert.equal(project?.plan, 'pro')
    assert.deepEqual((await cliJson<{ name: string }[]>(['locations', 'list', '--project', 'quiet', '--json'], cli)).map((l) => l.name), ['Main shelter'])
    warned(await run(['projects', 'delete', 'quiet', '--yes']), KEYS_AND_PLANS, DATA)
    // No server started on this store: no `default` project either.
    assert.deepEqual(await cliJson<Project[]>(['projects', 'list', '--json'], cli), [])
  })
})

describe('bans through the CLI', () => {
  const modes = [{ name: 'in-process limits', env: {} as Record<string, string> }]
  if (redisUrl) modes.push({ name: 'Redis limits', env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix() } })
  for (const mode of modes) {
    test(`keys list shows a ban and its end; keys unban lifts it on the running server (${mode.name})`, { timeout: 60_000 }, async () => {
      const dataDir = makeDataDir()
      const server = await startServer({ dataDir, env: mode.env })
      const cli = { dataDir, env: mode.env }
      await cliJson(['projects', 'create', 'noisy', '--plan', 'enterprise', '--per-minute', '1', '--per-day', '1000', '--json'], cli)
      const key = await cliJson<{ id: string; key: string }>(['keys', 'create', '--project', 'noisy', '--json'], cli)

      // The 40 requests that end in a ban must count in one minute window.
      await waitForWindowRoom(mode.env.REDIS_URL, 60_000, 15_000)
      let code: string | undefined
      for (let i = 0; i < 40 && code !== 'api_key_banned'; i++) {
        code = (await api<{ code?: string }>(server, 'GET', '/v1/pets', key.key)).body.code
      }
      assert.equal(code, 'api_key_banned')

      const listed = await cliJson<{ id: string; bannedUntil: string | null }[]>(['keys', 'list', '--project', 'noisy', '--json'], cli)
      const until = Date.parse(listed.find((k) => k.id === key.id)?.bannedUntil ?? '')
      assert.ok(Math.abs(until - Date.now() - 600_000) < 30_000, 'banned for 10 minutes')
      const human = await runCli(['keys', 'list', '--project', 'noisy'], cli)
      assert.match(human.stdout, /BANNED UNTIL/)
      assert.ok(human.stdout.includes(new Date(until).toISOString()))

      assert.deepEqual(await cliJson(['keys', 'unban', key.id, '--json'], cli), { id: key.id, wasBanned: true })
      let after: string | undefined = 'api_key_banned'
      for (let i = 0; i < 30 && after === 'api_key_banned'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        after = (await api<{ code?: string }>(server, 'GET', '/v1/pets', key.key)).body.code
      }
      assert.notEqual(after, 'api_key_banned', 'the running server honours the unban within seconds')
      const relisted = await cliJson<{ id: string; bannedUntil: string | null }[]>(['keys', 'list', '--project', 'noisy', '--json'], cli)
      assert.equal(relisted.find((k) => k.id === key.id)?.bannedUntil, null)
      const unknown = await runCli(['keys', 'unban', 'key_nope'], cli)
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /No API key with id "key_nope"/)
      if (mode.env.REDIS_KEY_PREFIX) await deleteRedisKeys(redisUrl!, mode.env.REDIS_KEY_PREFIX)
    })
  }
})
