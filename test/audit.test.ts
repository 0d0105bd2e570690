/**
 * The audit log: what a change records (actor, action, target, project, time, request id,
 * details), in the change's own transaction; `GET /admin/v1/audit` with its filters, cursor and
 * visibility; and `adoption-store audit list` (`runCli`). Every admin operation's own entry
 * is checked by test/admin-authorization.test.ts, which enumerates the admin document.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { commandLineChange, type Change } from '../src/audit/audit.js'
import type { AuditEntry } from '../src/audit/audit.schemas.js'
import { ADMIN_TOKEN, admin, createAdminApp } from './helpers/admin.js'
import { createUser, signIn } from './helpers/accounts.js'
import { ManualClock, type TestApp } from './helpers/app.js'
import { assertBuilt, cleanup, cliJson, makeDataDir, requestJson, runCli, startServer } from './helpers/process.js'


let counter = 0
const unique = (label: string) => `${label}-${process.pid}-${++counter}`

async function audit(t: TestApp, query = '', headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` }): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/admin/v1/audit${query}`, headers })
}

async function entries(t: TestApp, query = ''): Promise<AuditEntry[]> {
  const response = await audit(t, query)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<AuditEntry[]>()
}

describe('audit log through the admin API', () => {
  let t: TestApp
  const clock = new ManualClock()
  before(async () => {
    t = await createAdminApp({ clock })
  })
  after(async () => {
    await t?.close()
  })

  test('a change records who, what, when, in which request and what changed; a read records nothing', async () => {
    const slug = unique('audited')
    const created = await admin(t, 'POST', '/projects', { slug, plan: 'free' })
    assert.equal(created.statusCode, 201, created.body)
    clock.advance(1_000)
    const changed = await admin(t, 'PUT', `/projects/${slug}/plan`, { plan: 'enterprise', perMinute: 5, perDay: 50 })
    assert.equal(changed.statusCode, 200, changed.body)
    const key = await admin(t, 'POST', `/projects/${slug}/keys`, { name: 'ci' })
    assert.equal(key.statusCode, 201, key.body)
    const { id: keyId, key: secret, prefix } = key.json<{ id: string; key: string; prefix: string }>()

    const before = await entries(t, `?project=${slug}`)
    assert.equal((await admin(t, 'GET', `/projects/${slug}/keys`)).statusCode, 200)
    assert.equal((await admin(t, 'GET', '/projects')).statusCode, 200)
    assert.deepEqual(await entries(t, `?project=${slug}`), before, 'reads leave no entry')

    assert.deepEqual(
      before.map((e) => e.action),
      ['key.created', 'project.plan_changed', 'project.created'],
      'newest first',
    )
    const [keyEntry, planEntry, projectEntry] = before
    assert.deepEqual(projectEntry, {
      id: projectEntry!.id,
      at: new Date(clock.now() - 1_000).toISOString(),
      actor: { kind: 'admin_token', name: 'ADMIN_TOKEN' },
      action: 'project.created',
      target: { type: 'project', id: slug },
      project: slug,
      requestId: created.headers['x-request-id'],
      details: { plan: 'free', perMinute: 60, perDay: 1_000 },
    })
    assert.deepEqual(planEntry?.details, { from: { plan: 'free', perMinute: 60, perDay: 1_000 }, to: { plan: 'enterprise', perMinute: 5, perDay: 50 } })
    assert.equal(planEntry?.requestId, changed.headers['x-request-id'])
    assert.deepEqual(keyEntry?.target, { type: 'key', id: keyId })
    assert.deepEqual(keyEntry?.details, { name: 'ci', prefix, expiresAt: null, scopes: null, publishable: false, allowedOrigins: [] })
    assert.ok(!JSON.stringify(before).includes(secret), 'the secret is not recorded')
    assert.ok(projectEntry!.id < planEntry!.id && planEntry!.id < keyEntry!.id, 'ids ascend in the order of the changes')

    // What a key may do is recorded with it.
    const site = await admin(t, 'POST', `/projects/${slug}/keys`, { name: 'site', publishable: true, allowedOrigins: ['https://shelter.example'] })
    assert.equal(site.statusCode, 201, site.body)
    const [siteEntry] = await entries(t, `?project=${slug}&action=key.created`)
    assert.deepEqual(siteEntry?.target, { type: 'key', id: site.json<{ id: string }>().id })
    assert.deepEqual(siteEntry?.details, {
      name: 'site',
      prefix: site.json<{ prefix: string }>().prefix,
      expiresAt: null,
      scopes: ['pets:read'],
      publishable: true,
      allowedOrigins: ['https://shelter.example'],
    })
  })

  test('a signed-in user is the actor of their changes, and the request id they sent is the one recorded', async () => {
    const operator = await createUser(t, { role: 'operator' })
    const session = await signIn(t, operator.email, operator.password)
    const slug = unique('by-user')
    const response = await t.request({
      method: 'POST',
      url: '/admin/v1/projects',
      headers: { ...session.headers, 'content-type': 'application/json', 'x-request-id': `req-${slug}` },
      payload: JSON.stringify({ slug, plan: 'pro' }),
    })
    assert.equal(response.statusCode, 201, response.body)
    const [entry] = await entries(t, `?project=${slug}`)
    assert.deepEqual(entry?.actor, { kind: 'user', name: operator.email })
    assert.equal(entry?.requestId, `req-${slug}`)
    // Sign-in itself is recorded, with the user as its actor and target.
    const signIns = await entries(t, `?action=session.signed_in&actor=${encodeURIComponent(operator.email)}`)
    assert.equal(signIns.length, 1)
    assert.equal(signIns[0]?.target.type, 'user')
  })

  test('a refused change records nothing', async () => {
    const slug = unique('refused')
    assert.equal((await admin(t, 'POST', '/projects', { slug, plan: 'free' })).statusCode, 201)
    const count = (await entries(t, '?limit=100')).length
    assert.equal((await admin(t, 'POST', '/projects', { slug, plan: 'free' })).statusCode, 409, 'slug taken')
    assert.equal((await admin(t, 'PUT', `/projects/${slug}/plan`, { plan: 'enterprise' })).statusCode, 400, 'enterprise without limits')
    assert.equal((await admin(t, 'DELETE', `/projects/${slug}/keys/key_doesNotExist0000`)).statusCode, 404, 'no such key')
    assert.equal((await entries(t, '?limit=100')).length, count)
  })

  test('the change and its entry commit together: when the entry cannot be written, the change is undone', async () => {
    const projects = t.app.services.projects
    // An actor kind the table's check constraint refuses: the entry's insert fails inside the transaction.
    const broken: Change = { actor: { kind: 'robot' as Change['actor']['kind'], userId: null, name: 'robot' }, requestId: 'broken' }
    const slug = unique('atomic')
    await assert.rejects(projects.create(slug, { plan: 'free' }, broken))
    assert.equal(await projects.find(slug), undefined, 'no project without its entry')

    assert.ok((await projects.create(slug, { plan: 'free' }, commandLineChange())).ok)
    await assert.rejects(projects.setPlan(slug, { plan: 'business' }, broken))
    assert.equal((await projects.find(slug))?.plan, 'free', 'the plan did not change without its entry')
    assert.deepEqual(
      (await entries(t, `?project=${slug}`)).map((e) => e.action),
      ['project.created'],
    )
  })

  test('filters: project, action, actor, target, time range; the cursor pages through without gaps or repeats', async () => {
    const slug = unique('filtered')
    const start = clock.now()
    assert.equal((await admin(t, 'POST', '/projects', { slug, plan: 'pro' })).statusCode, 201)
    const keys: string[] = []
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000)
      const key = await admin(t, 'POST', `/projects/${slug}/keys`, { name: `k${i}` })
      keys.push(key.json<{ id: string }>().id)
    }
    clock.advance(60_000)
    assert.equal((await admin(t, 'DELETE', `/projects/${slug}/keys/${keys[2]}`)).statusCode, 200)

    assert.equal((await entries(t, `?project=${slug}`)).length, 7)
    assert.equal((await entries(t, `?project=${slug}&action=key.created`)).length, 5)
    assert.deepEqual(
      (await entries(t, `?targetType=key&targetId=${keys[2]}`)).map((e) => e.action),
      ['key.revoked', 'key.created'],
    )
    assert.equal((await entries(t, `?project=${slug}&actor=ADMIN_TOKEN`)).length, 7)
    assert.equal((await entries(t, `?project=${slug}&actor=nobody@example.test`)).length, 0)
    // since is inclusive, until exclusive: the keys made at minutes 2, 3 and 4.
    const since = new Date(start + 2 * 60_000).toISOString()
    const until = new Date(start + 5 * 60_000).toISOString()
    const ranged = await entries(t, `?project=${slug}&since=${since}&until=${until}`)
    assert.deepEqual(ranged.map((e) => e.details.name), ['k3', 'k2', 'k1'])
    // An offset is an instant like any other.
    assert.deepEqual(await entries(t, `?project=${slug}&since=${encodeURIComponent(new Date(start + 2 * 60_000 + 3_600_000).toISOString().replace('Z', '+01:00'))}&until=${until}`), ranged)

    const seen: number[] = []
    let url: string | undefined = `?project=${slug}&limit=3`
    let pages = 0
    while (url) {
      const page = await audit(t, url)
      assert.equal(page.statusCode, 200, page.body)
      seen.push(...page.json<AuditEntry[]>().map((e) => e.id))
      const next = /<\/admin\/v1\/audit(\?[^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''))
      if (next) assert.match(next[1]!, /[?&]project=/, 'the next page keeps the filters')
      url = next?.[1]
      pages++
    }
    assert.equal(pages, 3)
    const all = (await entries(t, `?project=${slug}`)).map((e) => e.id)
    assert.deepEqual(seen, all, 'every entry once, newest first')
  })

  test('bad filters are 400 naming the parameter; an unknown project is 404', async () => {
    for (const [query, field] of [
      ['?action=project.exploded', 'action'],
      ['?since=yesterday', 'since'],
      ['?until=2026-02-30T00:00:00Z', 'until'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?before=0', 'before'],
      ['?before=abc', 'before'],
    ] as const) {
      const response = await audit(t, query)
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
      assert.equal(response.json<{ code: string }>().code, 'invalid_request')
      assert.match(response.json<{ message: string }>().message, new RegExp(field), query)
    }
    const missing = await audit(t, '?project=no-such-project')
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json<{ code: string }>().code, 'not_found')
  })

  test("owners see their projects' entries and their own changes, nothing else; another project is 404 as for none", async () => {
    const mine = unique('owned')
    const theirs = unique('not-owned')
    for (const slug of [mine, theirs]) assert.equal((await admin(t, 'POST', '/projects', { slug, plan: 'free' })).statusCode, 201)
    assert.equal((await admin(t, 'POST', `/projects/${theirs}/keys`, { name: 'hidden' })).statusCode, 201)
    const owner = await createUser(t, { role: 'owner', projects: [mine] })
    const session = await signIn(t, owner.email, owner.password)
    const key = await t.request({
      method: 'POST',
      url: `/admin/v1/projects/${mine}/keys`,
      headers: { ...session.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'own' }),
    })
    assert.equal(key.statusCode, 201, key.body)

    const seen = await audit(t, '?limit=100', { cookie: session.headers.cookie })
    assert.equal(seen.statusCode, 200, seen.body)
    const visible = seen.json<AuditEntry[]>()
    assert.ok(visible.length > 0)
    for (const entry of visible) {
      assert.ok(entry.project === mine || (entry.project === null && entry.actor.name === owner.email), `an owner sees ${JSON.stringify(entry)}`)
    }
    assert.ok(visible.some((e) => e.action === 'project.created' && e.project === mine), "their project's entries, made by others too")
    assert.ok(visible.some((e) => e.action === 'session.signed_in'), 'their own sign-in')
    const other = await audit(t, `?project=${theirs}`, { cookie: session.headers.cookie })
    assert.equal(other.statusCode, 404)
    assert.equal(other.json<{ message: string }>().message, `No project with slug "${theirs}".`)
  })
})

describe('adoption-store audit list', () => {
  before(() => assertBuilt())
  afterEach(cleanup)

  test('CLI changes are recorded with the system user and one request id per command; list filters and prints JSON', async () => {
    const dataDir = makeDataDir()
    await cliJson(['projects', 'create', 'acme', '--plan', 'pro', '--json'], { dataDir })
    await cliJson(['projects', 'set-plan', 'acme', 'business', '--json'], { dataDir })
    const key = await cliJson<{ id: string; key: string }>(['keys', 'create', '--project', 'acme', '--json'], { dataDir })

    const listed = await cliJson<AuditEntry[]>(['audit', 'list', '--json'], { dataDir })
    assert.deepEqual(
      listed.map((e) => [e.action, e.target.id]),
      [
        ['key.created', key.id],
        ['project.plan_changed', 'acme'],
        ['project.created', 'acme'],
      ],
    )
    for (const entry of listed) {
      assert.equal(entry.actor.kind, 'cli')
      assert.match(entry.actor.name, /^cli:./)
      assert.match(entry.requestId ?? '', /^cli-[0-9a-f-]{36}$/)
      assert.equal(entry.project, 'acme')
    }
    assert.equal(new Set(listed.map((e) => e.requestId)).size, 3, 'each invocation its own request id')
    assert.ok(!JSON.stringify(listed).includes(key.key), 'no secret')

    assert.deepEqual(
      (await cliJson<AuditEntry[]>(['audit', 'list', '--action', 'project.created', '--json'], { dataDir })).map((e) => e.action),
      ['project.created'],
    )
    const paged = await cliJson<AuditEntry[]>(['audit', 'list', '--limit', '2', '--before', String(listed[0]!.id), '--json'], { dataDir })
    assert.deepEqual(paged.map((e) => e.id), listed.slice(1).map((e) => e.id))

    const human = await runCli(['audit', 'list', '--limit', '1'], { dataDir })
    assert.equal(human.code, 0, human.stderr)
    assert.match(human.stdout, /^ID +AT +ACTOR +ACTION +TARGET +PROJECT +REQUEST\n/)
    assert.match(human.stdout, /key\.created +key /)
    assert.match(human.stderr, new RegExp(`More entries: add --before ${listed[0]!.id}`))

    const bad = await runCli(['audit', 'list', '--since', 'yesterday'], { dataDir })
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /--since.*RFC 3339/)
    const unknown = await runCli(['audit', 'list', '--project', 'nope'], { dataDir })
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /No project with slug "nope"/)
  })

  test('--actor-kind and --key list the writes an API key made through /v1', async () => {
    const dataDir = makeDataDir()
    await cliJson(['projects', 'create', 'acme', '--plan', 'pro', '--json'], { dataDir })
    const first = await cliJson<{ id: string; key: string }>(['keys', 'create', '--project', 'acme', '--json'], { dataDir })
    const second = await cliJson<{ id: string; key: string }>(['keys', 'create', '--project', 'acme', '--json'], { dataDir })
    const server = await startServer({ dataDir })
    const created: number[] = []
    for (const key of [first, second, first]) {
      const answer = await requestJson<{ id: number }>(server, 'POST', '/v1/pets', key.key, { name: 'Rex', categoryId: 1 })
      assert.equal(answer.status, 201)
      created.push(answer.body.id)
    }
    assert.equal((await requestJson(server, 'DELETE', `/v1/pets/${created[1]}`, second.key)).status, 204)
    await server.stop()

    const byFirst = await cliJson<AuditEntry[]>(['audit', 'list', '--actor-kind', 'api_key', '--key', first.id, '--json'], { dataDir })
    assert.deepEqual(
      byFirst.map((e) => [e.action, e.target.id, e.actor]),
      [
        ['pet.created', String(created[2]), { kind: 'api_key', name: `key:${first.id}`, keyId: first.id }],
        ['pet.created', String(created[0]), { kind: 'api_key', name: `key:${first.id}`, keyId: first.id }],
      ],
    )
    assert.deepEqual(
      (await cliJson<AuditEntry[]>(['audit', 'list', '--key', second.id, '--json'], { dataDir })).map((e) => [e.action, e.target.id]),
      [
        ['pet.deleted', String(created[1])],
        ['pet.created', String(created[1])],
      ],
    )
    const cli = await cliJson<AuditEntry[]>(['audit', 'list', '--actor-kind', 'cli', '--json'], { dataDir })
    assert.deepEqual(cli.map((e) => e.action), ['key.created', 'key.created', 'project.created'])
    const human = await runCli(['audit', 'list', '--actor-kind', 'api_key', '--limit', '1'], { dataDir })
    assert.equal(human.code, 0, human.stderr)
    assert.match(human.stdout, new RegExp(`key:${second.id} +pet\\.deleted +pet ${created[1]}`))
    const bad = await runCli(['audit', 'list', '--actor-kind', 'robot'], { dataDir })
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /--actor-kind.*robot/)
  })
})
