/**
 * The admin API the dashboard uses, through the HTTP boundary with the operator token: projects
 * and plans, API keys and bans, usage. Every response is checked against the admin OpenAPI
 * document by the `admin()` helper. Owners and sessions are tested with the accounts.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, assertMatchesAdminContract } from './helpers/admin.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import { eventually } from './helpers/wait.js'

interface Project {
  slug: string
  plan: string
  limits: { perMinute: number; perDay: number }
  address: string | null
  createdAt: string
}
interface ApiKey {
  id: string
  name: string | null
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
  bannedUntil: string | null
}
interface Usage {
  range: string
  bucketSeconds: number
  limits: { perMinute: number; perDay: number }
  points: { at: string; requests: number; limited: number; bans: number }[]
}

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
let apps: TestApp[] = []
let counter = 0

afterEach(async () => {
  for (const t of apps) await t.close()
  apps = []
})

async function start(config: object = {}): Promise<TestApp & { clock: ManualClock }> {
  const clock = new ManualClock(NOW)
  const t = await createTestApp({ clock, config: { adminToken: ADMIN_TOKEN, ...config } })
  apps.push(t)
  return Object.assign(t, { clock })
}

const slug = () => `admin-${process.pid}-${++counter}`
const code = (response: LightMyRequestResponse) => response.json<{ code: string }>().code
const pets = (t: TestApp, key: string) => t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })

async function createKey(t: TestApp, project: string, body: object = {}): Promise<ApiKey & { key: string }> {
  const response = await admin(t, 'POST', `/projects/${project}/keys`, body)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

async function keys(t: TestApp, project: string): Promise<ApiKey[]> {
  const response = await admin(t, 'GET', `/projects/${project}/keys`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

async function usage(t: TestApp, project: string, range: 'hour' | 'week'): Promise<Usage> {
  const response = await admin(t, 'GET', `/projects/${project}/usage?range=${range}`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

/** Sends 32 requests with a key of a 1-per-minute project: 1 admitted, 30 limited, the last starts a ban. */
async function getBanned(t: TestApp, key: string): Promise<void> {
  assert.equal((await pets(t, key)).statusCode, 200)
  for (let i = 0; i < 30; i++) assert.equal(code(await pets(t, key)), 'rate_limited')
  assert.equal(code(await pets(t, key)), 'api_key_banned')
}

describe('admin API: projects and plans', () => {
  test('an operator creates a project: 201 with Location, the limits in force, no address without PLATFORM_DOMAIN', async () => {
    const t = await start()
    const name = slug()
    const created = await admin(t, 'POST', '/projects', { slug: name, plan: 'pro' })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.headers.location, `/admin/v1/projects/${name}`)
    assert.deepEqual(created.json(), { slug: name, plan: 'pro', limits: { perMinute: 300, perDay: 10_000 }, address: null, webhookPrivateNetworks: false, createdAt: new Date(NOW).toISOString() })

    const enterprise = await admin(t, 'POST', '/projects', { slug: slug(), plan: 'enterprise', perMinute: 5_000, perDay: 2_000_000 })
    assert.equal(enterprise.statusCode, 201, enterprise.body)
    assert.deepEqual(enterprise.json<Project>().limits, { perMinute: 5_000, perDay: 2_000_000 })
  })

  test('with PLATFORM_DOMAIN a project has its address', async () => {
    const t = await start({ platformDomain: 'platform.test' })
    const name = slug()
    const created = await admin(t, 'POST', '/projects', { slug: name, plan: 'free' })
    assert.equal(created.json<Project>().address, `https://${name}.platform.test`)
    assert.equal((await admin(t, 'GET', `/projects/${name}`)).json<Project>().address, `https://${name}.platform.test`)
  })

  test('a duplicate slug is 409 slug_taken; invalid slugs, plans and limits are 400 naming the problem', async () => {
    const t = await start()
    const name = slug()
    assert.equal((await admin(t, 'POST', '/projects', { slug: name, plan: 'free' })).statusCode, 201)
    const duplicate = await admin(t, 'POST', '/projects', { slug: name, plan: 'pro' })
    assert.equal(duplicate.statusCode, 409)
    assert.equal(code(duplicate), 'slug_taken')
    assert.match(duplicate.json<{ message: string }>().message, new RegExp(`"${name}" already exists`))
    // The same new slug twice at once: one is created, the other is told it is taken.
    const together = slug()
    const racing = await Promise.all([0, 1].map(() => admin(t, 'POST', '/projects', { slug: together, plan: 'free' })))
    assert.deepEqual(racing.map((r) => r.statusCode).sort(), [201, 409])

    const cases: [object, RegExp][] = [
      [{ slug: 'Not_A_Label', plan: 'free' }, /Invalid slug/],
      [{ slug: '-leading', plan: 'free' }, /Invalid slug/],
      [{ slug: '', plan: 'free' }, /slug.*at least 1 character/],
      [{ slug: 'x'.repeat(64), plan: 'free' }, /slug.*at most 63/],
      [{ slug: slug(), plan: 'gold' }, /plan.*one of: free, pro, business, enterprise/],
      [{ slug: slug() }, /missing the required field "plan"/],
      [{ slug: slug(), plan: 'enterprise', perMinute: 10 }, /enterprise needs its per-day limit/],
      [{ slug: slug(), plan: 'pro', perMinute: 10, perDay: 100 }, /fixed limits/],
      [{ slug: slug(), plan: 'enterprise', perMinute: 0, perDay: 100 }, /perMinute.*>= 1/],
      [{ slug: slug(), plan: 'free', owner: 'me' }, /Unknown field "owner"/],
    ]
    for (const [body, message] of cases) {
      const response = await admin(t, 'POST', '/projects', body)
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`)
      assert.equal(code(response), 'invalid_request')
      assert.match(response.json<{ message: string }>().message, message, JSON.stringify(body))
    }
  })

  test('bodies must be JSON (415) and within the body limit (413)', async () => {
    const t = await start({ bodyLimit: 1024 })
    const send = async (headers: Record<string, string>, payload: string) => {
      const response = await t.request({ method: 'POST', url: '/admin/v1/projects', headers: { ...bearer(ADMIN_TOKEN), ...headers }, payload })
      await assertMatchesAdminContract(t.app, 'POST', '/admin/v1/projects', response)
      return response
    }
    assert.equal((await send({ 'content-type': 'text/plain' }, 'slug=x')).statusCode, 415)
    const large = await send({ 'content-type': 'application/json' }, JSON.stringify({ slug: 'x', plan: 'free', pad: 'x'.repeat(2048) }))
    assert.equal(large.statusCode, 413)
  })

  test('lists every project for the operator, and gets one; an unknown slug is 404', async () => {
    const t = await start()
    const a = await t.project({ plan: 'free' })
    const b = await t.project({ plan: 'enterprise', perMinute: 7, perDay: 70 })
    const list = await admin(t, 'GET', '/projects')
    assert.equal(list.statusCode, 200)
    const projects = list.json<Project[]>()
    assert.deepEqual(
      projects.map((p) => p.slug),
      [a.slug, b.slug],
    )
    assert.deepEqual(projects[1]?.limits, { perMinute: 7, perDay: 70 })
    assert.ok(projects.every((p) => !('id' in p)), 'internal ids are not shown')

    const one = await admin(t, 'GET', `/projects/${b.slug}`)
    assert.equal(one.statusCode, 200)
    assert.deepEqual(one.json(), projects[1])
    const unknown = await admin(t, 'GET', '/projects/no-such-project')
    assert.equal(unknown.statusCode, 404)
    assert.equal(code(unknown), 'not_found')
  })

  test('a plan change applies to the very next /v1 request: X-RateLimit-Limit shows the new limit', async () => {
    const t = await start()
    const { slug: project, key } = await t.project({ plan: 'free' })
    assert.equal((await pets(t, key)).headers['x-ratelimit-limit'], '60')

    const changed = await admin(t, 'PUT', `/projects/${project}/plan`, { plan: 'pro' })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(changed.json<Project>().limits, { perMinute: 300, perDay: 10_000 })
    assert.equal((await pets(t, key)).headers['x-ratelimit-limit'], '300')

    const enterprise = await admin(t, 'PUT', `/projects/${project}/plan`, { plan: 'enterprise', perMinute: 2, perDay: 50 })
    assert.equal(enterprise.statusCode, 200, enterprise.body)
    const next = await pets(t, key)
    assert.equal(next.headers['x-ratelimit-limit'], '2')
    assert.equal(next.statusCode, 429, 'three requests this minute, on a plan of 2')
  })

  test('plan changes are checked: 400 for a bad plan or limits, 404 for an unknown project', async () => {
    const t = await start()
    const { slug: project } = await t.project({ plan: 'free' })
    for (const body of [{ plan: 'enterprise' }, { plan: 'free', perDay: 10 }, { plan: 'platinum' }, {}, { plan: 'pro', extra: 1 }]) {
      const response = await admin(t, 'PUT', `/projects/${project}/plan`, body)
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`)
    }
    assert.equal((await admin(t, 'GET', `/projects/${project}`)).json<Project>().plan, 'free', 'refused changes change nothing')
    assert.equal((await admin(t, 'PUT', '/projects/no-such-project/plan', { plan: 'pro' })).statusCode, 404)
  })
})

describe('admin API: keys and bans', () => {
  test('a created key is shown once (no-store), works on /v1 at once, and its secret is never listed', async () => {
    const t = await start()
    const { slug: project } = await t.project()
    const response = await admin(t, 'POST', `/projects/${project}/keys`, { name: 'CI runner', expiresInDays: 30 })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.headers['cache-control'], 'no-store')
    const created = response.json<ApiKey & { key: string }>()
    assert.match(created.key, /^as_live_[0-9A-Za-z]{28}_[0-9A-Za-z]{6}$/)
    assert.equal(created.prefix, created.key.slice(0, 12))
    assert.equal(created.name, 'CI runner')
    assert.equal(created.expiresAt, new Date(NOW + 30 * 86_400_000).toISOString())
    assert.deepEqual([created.revokedAt, created.bannedUntil, created.lastUsedAt], [null, null, null])

    assert.equal((await pets(t, created.key)).statusCode, 200)

    // "Last used" is written in the background, after the answer: wait for it (2 s at most).
    const list = async () => {
      const listed = await admin(t, 'GET', `/projects/${project}/keys`)
      return { listed, mine: listed.json<ApiKey[]>().find((k) => k.id === created.id) }
    }
    let found = await list()
    for (let waited = 0; found.mine?.lastUsedAt === null && waited < 2000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      found = await list()
    }
    const { listed, mine } = found
    assert.equal(listed.statusCode, 200)
    assert.ok(!listed.body.includes(created.key), 'the secret is not in the list')
    assert.ok(!listed.body.includes(created.key.slice(12)), 'nor its random part')
    assert.ok(mine)
    assert.equal('key' in mine, false)
    assert.equal(mine.lastUsedAt, new Date(NOW).toISOString(), 'used by the request above')
    assert.equal(listed.headers['cache-control'], 'no-store', 'as every admin answer')
  })

  test('a key without a name or expiry; bad names and lifetimes are 400; an unknown project is 404', async () => {
    const t = await start()
    const { slug: project } = await t.project()
    const plain = await createKey(t, project)
    assert.equal(plain.name, null)
    assert.equal(plain.expiresAt, null)
    const cases: [object, RegExp][] = [
      [{ expiresInDays: 0 }, /expiresInDays.*>= 1/],
      [{ expiresInDays: 3651 }, /expiresInDays.*<= 3650/],
      [{ expiresInDays: 1.5 }, /expiresInDays.*integer/],
      [{ name: 'x'.repeat(101) }, /name.*at most 100/],
      [{ name: 'tab\there' }, /control characters/],
      [{ scopes: ['read'] }, /scopes.0.*one of: pets:read, pets:write, orders:read, orders:write/],
      [{ publishable: true, allowedOrigins: ['https://shelter.example/'] }, /allowedOrigins\[0\]/],
    ]
    for (const [body, message] of cases) {
      const response = await admin(t, 'POST', `/projects/${project}/keys`, body)
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`)
      assert.match(response.json<{ message: string }>().message, message)
    }
    assert.equal((await admin(t, 'POST', '/projects/no-such-project/keys', {})).statusCode, 404)
    assert.equal((await admin(t, 'GET', '/projects/no-such-project/keys')).statusCode, 404)
    assert.equal((await keys(t, project)).length, 2, 'the helper key and the plain one; no refused one')
  })

  test('a revoked key gets 401 on the next request; revoking again answers it unchanged', async () => {
    const t = await start()
    const { slug: project } = await t.project()
    const created = await createKey(t, project)
    assert.equal((await pets(t, created.key)).statusCode, 200)
    // The use is recorded in the background: once it is, the two revocations see the same key.
    await eventually('the key use is recorded', async () => (await keys(t, project)).find((k) => k.id === created.id)?.lastUsedAt != null)

    const revoked = await admin(t, 'DELETE', `/projects/${project}/keys/${created.id}`)
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(revoked.json<ApiKey>().revokedAt, new Date(NOW).toISOString())
    const refused = await pets(t, created.key)
    assert.equal(refused.statusCode, 401)
    assert.match(refused.json<{ message: string }>().message, /revoked/)

    const again = await admin(t, 'DELETE', `/projects/${project}/keys/${created.id}`)
    assert.equal(again.statusCode, 200)
    assert.deepEqual(again.json(), revoked.json())
    assert.equal((await keys(t, project)).find((k) => k.id === created.id)?.revokedAt, new Date(NOW).toISOString())
  })

  test("a key of another project is 404 by id, for revoking and for lifting a ban, and stays untouched", async () => {
    const t = await start()
    const mine = await t.project()
    const other = await t.project()
    const theirs = await t.key(other.slug)
    const revoke = await admin(t, 'DELETE', `/projects/${mine.slug}/keys/${theirs.id}`)
    assert.equal(revoke.statusCode, 404)
    assert.equal(code(revoke), 'not_found')
    assert.equal((await admin(t, 'DELETE', `/projects/${mine.slug}/keys/${theirs.id}/ban`)).statusCode, 404)
    assert.equal((await admin(t, 'DELETE', `/projects/${mine.slug}/keys/key_doesNotExist0000`)).statusCode, 404)
    assert.equal((await admin(t, 'DELETE', `/projects/${mine.slug}/keys/key_doesNotExist0000/ban`)).statusCode, 404)
    assert.equal((await admin(t, 'DELETE', `/projects/no-such-project/keys/${theirs.id}`)).statusCode, 404)
    assert.equal((await admin(t, 'DELETE', `/projects/${mine.slug}/keys/${'k'.repeat(65)}`)).statusCode, 400)
    assert.equal((await pets(t, theirs.secret)).statusCode, 200, 'the other project\'s key still works')
  })

  test('a ban shows in the list with its end; lifting it makes the very next /v1 request pass the ban', async () => {
    const t = await start()
    const { slug: project, key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    await getBanned(t, key)
    const [banned] = await keys(t, project)
    assert.ok(banned)
    assert.equal(banned.bannedUntil, new Date(NOW + 600_000).toISOString())

    const lifted = await admin(t, 'DELETE', `/projects/${project}/keys/${banned.id}/ban`)
    assert.equal(lifted.statusCode, 204)
    assert.equal(lifted.body, '')
    // No time passes: the running limiter lifted its own ban, not a re-read of the record.
    assert.equal(code(await pets(t, key)), 'rate_limited', 'the minute is still used up, but the key is not banned')
    t.clock.advance(60_000)
    assert.equal((await pets(t, key)).statusCode, 200, 'the next minute, well within the 10 minutes the ban had')
    assert.equal((await keys(t, project))[0]?.bannedUntil, null)

    // Lifting no ban changes nothing.
    assert.equal((await admin(t, 'DELETE', `/projects/${project}/keys/${banned.id}/ban`)).statusCode, 204)
  })

  test('a missing or wrong operator token is 401 on the new routes', async () => {
    const t = await start()
    const { slug: project, key } = await t.project()
    const missing = await t.request({ method: 'GET', url: `/admin/v1/projects/${project}/keys` })
    assert.equal(missing.statusCode, 401)
    await assertMatchesAdminContract(t.app, 'GET', `/admin/v1/projects/${project}/keys`, missing)
    assert.equal((await admin(t, 'POST', '/projects', { slug: slug(), plan: 'free' }, key)).statusCode, 401)
    assert.equal((await admin(t, 'GET', '/projects', undefined, 'wrong-token')).statusCode, 401)
  })
})

describe('admin API: usage', () => {
  test('requests, 429s and the ban are in the current minute and today; zeros elsewhere; other traffic is not counted', async () => {
    const t = await start()
    const { slug: project, key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    const other = await t.project()
    await getBanned(t, key)
    assert.equal(code(await pets(t, key)), 'api_key_banned')
    // Not this project's: another project's key, no key, a wrong key.
    await pets(t, other.key)
    await t.request({ method: 'GET', url: '/v1/pets' })
    await t.request({ method: 'GET', url: '/v1/pets', headers: bearer('as_live_nope') })

    const hour = await usage(t, project, 'hour')
    assert.equal(hour.range, 'hour')
    assert.equal(hour.bucketSeconds, 60)
    assert.deepEqual(hour.limits, { perMinute: 1, perDay: 1000 })
    assert.equal(hour.points.length, 60)
    assert.equal(hour.points[0]?.at, new Date(NOW - 59 * 60_000).toISOString())
    assert.deepEqual(hour.points[59], { at: new Date(NOW).toISOString(), requests: 33, limited: 32, bans: 1 })
    assert.ok(hour.points.slice(0, 59).every((p) => p.requests === 0 && p.limited === 0 && p.bans === 0))

    const week = await usage(t, project, 'week')
    assert.equal(week.bucketSeconds, 86_400)
    assert.equal(week.points.length, 7)
    assert.deepEqual(
      week.points.map((p) => p.at),
      [6, 5, 4, 3, 2, 1, 0].map((days) => new Date(Date.UTC(2026, 10, 22 - days)).toISOString()),
    )
    assert.deepEqual(week.points[6], { at: '2026-11-22T00:00:00.000Z', requests: 33, limited: 32, bans: 1 })
    assert.ok(week.points.slice(0, 6).every((p) => p.requests === 0))

    assert.deepEqual((await usage(t, other.slug, 'hour')).points[59], { at: new Date(NOW).toISOString(), requests: 1, limited: 0, bans: 0 })
  })

  test('buckets move with the clock: minutes within the hour, days within the week', async () => {
    const t = await start()
    const { slug: project, key } = await t.project({ plan: 'pro' })
    await pets(t, key)
    t.clock.advance(5 * 60_000)
    await pets(t, key)
    await pets(t, key)
    let hour = await usage(t, project, 'hour')
    assert.equal(hour.points[54]?.requests, 1)
    assert.equal(hour.points[59]?.requests, 2)
    assert.equal(hour.points.reduce((sum, p) => sum + p.requests, 0), 3)

    // Tomorrow 00:30: the hour no longer holds them, the week does, in yesterday's bucket.
    t.clock.set(Date.UTC(2026, 10, 23, 0, 30))
    await pets(t, key)
    hour = await usage(t, project, 'hour')
    assert.equal(hour.points.reduce((sum, p) => sum + p.requests, 0), 1)
    const week = await usage(t, project, 'week')
    assert.deepEqual(
      week.points.slice(5).map((p) => [p.at, p.requests]),
      [
        ['2026-11-22T00:00:00.000Z', 3],
        ['2026-11-23T00:00:00.000Z', 1],
      ],
    )
  })

  test('the counts of several instances add up', async () => {
    const t = await start()
    const sibling = await t.sibling()
    const { slug: project, key } = await t.project({ plan: 'pro' })
    try {
      for (let i = 0; i < 3; i++) await pets(t, key)
      for (let i = 0; i < 4; i++) await sibling.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
      // Each instance writes its own counts (here: when its usage is read, or at close).
      assert.equal((await usage(sibling, project, 'hour')).points[59]?.requests, 4)
      assert.equal((await usage(t, project, 'hour')).points[59]?.requests, 7)
      await pets(t, key)
    } finally {
      await sibling.close()
    }
    assert.equal((await usage(t, project, 'hour')).points[59]?.requests, 8)
  })

  test('counts still pending are written when the instance closes', async () => {
    const t = await start()
    const { slug: project, key } = await t.project({ plan: 'pro' })
    for (let i = 0; i < 5; i++) await pets(t, key)
    apps = apps.filter((a) => a !== t)
    const restarted = await t.restart()
    apps.push(restarted)
    assert.equal((await usage(restarted, project, 'hour')).points[59]?.requests, 5)
  })

  test('rows older than 8 days are deleted', async () => {
    const t = await start()
    const { id, slug: project } = await t.project()
    const row = (days: number) => ({ project_id: id, minute: new Date(NOW - days * 86_400_000).toISOString(), requests: 1, limited: 0, bans: 0 })
    await t.database.db.insertInto('usage_minutes').values([row(9), row(7)]).execute()
    await usage(t, project, 'week')
    const left = await t.database.db.selectFrom('usage_minutes').select('minute').where('project_id', '=', id).execute()
    assert.deepEqual(
      left.map((r) => r.minute),
      [row(7).minute],
    )
  })

  test('range is required and is hour or week; an unknown project is 404', async () => {
    const t = await start()
    const { slug: project } = await t.project()
    for (const query of ['', '?range=day', '?range=hour&range=week', '?limit=5']) {
      const response = await admin(t, 'GET', `/projects/${project}/usage${query}`)
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
    }
    // A parameter the operation does not list is ignored.
    const extra = await admin(t, 'GET', `/projects/${project}/usage?range=hour&limit=5`)
    assert.equal(extra.statusCode, 200, extra.body)
    assert.equal(extra.json<{ points: unknown[] }>().points.length, 60)
    assert.equal((await admin(t, 'GET', '/projects/no-such-project/usage?range=hour')).statusCode, 404)
  })
})

describe('admin API: document', () => {
  test('every operation has an operationId, a tag, a summary, and documents 400, 401, 404, 500 and 503', async () => {
    const t = await start()
    const doc = (await admin(t, 'GET', '/openapi.json')).json<{
      tags: { name: string }[]
      paths: Record<string, Record<string, { operationId: string; tags: string[]; summary: string; responses: Record<string, unknown> }>>
    }>()
    for (const tag of ['projects', 'keys', 'usage', 'domains']) assert.ok(doc.tags.some((t) => t.name === tag), tag)
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, ...op })))
    const ids = operations.map((op) => op.operationId)
    for (const id of ['listProjects', 'createProject', 'getProject', 'setProjectPlan', 'listApiKeys', 'createApiKey', 'revokeApiKey', 'liftApiKeyBan', 'getUsage', 'listDomains']) {
      assert.ok(ids.includes(id), id)
    }
    for (const op of operations.filter((op) => !op.tags.includes('domains') && op.path.startsWith('/projects'))) {
      assert.ok(op.summary, op.operationId)
      for (const status of ['400', '401', '404', '500', '503']) assert.ok(op.responses[status], `${op.operationId} documents ${status}`)
      if (op.method !== 'get') assert.ok(op.responses['403'], `${op.operationId} documents 403`)
    }

    // The public document describes /v1 only: no admin path, no admin shape.
    const publicDoc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: object; components: { schemas: object } }>()
    assert.ok(Object.keys(publicDoc.paths).every((path) => !path.startsWith('/projects')))
    for (const shape of ['Project', 'ApiKey', 'NewApiKey', 'Usage']) assert.ok(!(shape in publicDoc.components.schemas), shape)
  })
})
