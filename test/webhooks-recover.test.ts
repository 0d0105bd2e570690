/**
 * Recovery of an endpoint's failed deliveries, replay of a project's past events to an endpoint,
 * and the event list with its retention, on the suite's back end (TEST_DIALECT), to real HTTP
 * receivers, on a manual clock.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import { ADMIN_TOKEN, admin } from './helpers/admin.js'
import { bearer, ManualClock, type TestApp } from './helpers/app.js'
import { Receiver } from './helpers/receiver.js'
import { eventually } from './helpers/wait.js'
import { addEndpoint, createWebhooksApp, deliverAll, deliveriesOf } from './helpers/webhooks.js'
import { MAX_ATTEMPTS } from '../src/webhooks/worker.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

let receiver: Receiver
let t: TestApp
let clock: ManualClock

beforeEach(async () => {
  receiver = await Receiver.start()
  clock = new ManualClock()
  t = await createWebhooksApp({}, { clock })
})

afterEach(async () => {
  await t.close()
  await receiver.close()
})

const iso = (ms: number) => new Date(ms).toISOString()

async function addPet(key: string, name: string): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify({ name, categoryId: 1 }) })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<{ id: number }>().id
}

/** Runs every attempt due until none is pending: each failed delivery uses up its schedule. */
async function attemptUntilSettled(slug: string, endpointId: string): Promise<void> {
  for (let pass = 0; pass <= MAX_ATTEMPTS; pass++) {
    await deliverAll(t)
    const due = (await deliveriesOf(t, slug, endpointId)).filter((d) => d.state === 'pending').map((d) => Date.parse(d.nextAttemptAt!))
    if (due.length === 0) return
    clock.set(Math.max(...due))
  }
  assert.fail(`deliveries still pending after every attempt of the schedule: ${JSON.stringify(await deliveriesOf(t, slug, endpointId))}`)
}

interface ListedEvent {
  id: string
  type: string
  createdAt: string
  data: Record<string, unknown>
}

describe('recover', () => {
  test('queues each failed event of the range again, once, with its webhook-id and a full schedule; sent or pending events are left out', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const start = clock.now()
    // Before the range: fails, and stays failed.
    receiver.fallback = { status: 500 }
    await addPet(project.key, 'Early')
    await attemptUntilSettled(project.slug, endpoint.id)
    // A success between: the endpoint is healthy again (not disabled after 5 days of failures in all).
    receiver.fallback = { status: 204 }
    await addPet(project.key, 'Between')
    await deliverAll(t)
    receiver.fallback = { status: 500 }
    clock.advance(HOUR_MS)
    const since = clock.now()
    // In the range: two fail for good; a third fails and then its redelivery succeeds.
    const failing = [await addPet(project.key, 'A'), await addPet(project.key, 'B'), await addPet(project.key, 'C')]
    await attemptUntilSettled(project.slug, endpoint.id)
    const failed = (await deliveriesOf(t, project.slug, endpoint.id)).filter((d) => d.state === 'failed')
    assert.equal(failed.length, 4)
    const byPet = new Map(receiver.received.map((r) => [r.event.data.id, r.id]))
    receiver.fallback = { status: 204 }
    const redelivered = failed.find((d) => d.eventId === byPet.get(failing[2]))!
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries/${redelivered.id}/redeliver`)).statusCode, 202)
    await deliverAll(t)
    // A success after the range: not failed, not recovered.
    await addPet(project.key, 'Later')
    await deliverAll(t)
    receiver.received.length = 0

    receiver.fallback = { status: 500 }
    const recovered = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/recover`, { since: iso(since) })
    assert.equal(recovered.statusCode, 202, recovered.body)
    assert.deepEqual(recovered.json(), { queued: 2 })
    const queued = (await deliveriesOf(t, project.slug, endpoint.id)).filter((d) => d.state === 'pending')
    assert.deepEqual(queued.map((d) => d.eventId).sort(), [byPet.get(failing[0]), byPet.get(failing[1])].sort())
    for (const delivery of queued) {
      assert.equal(delivery.manual, false, 'a new series of attempts, retried on the schedule')
      assert.equal(delivery.attempts, 0)
      assert.equal(delivery.createdAt, iso(clock.now()))
    }
    // While they are pending, asking again queues nothing more.
    assert.deepEqual((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/recover`, { since: iso(since) })).json(), { queued: 0 })
    // The first attempt fails: retried, not given up.
    await deliverAll(t)
    assert.ok((await deliveriesOf(t, project.slug, endpoint.id)).filter((d) => d.state === 'pending' && d.attempts === 1).length === 2)
    receiver.fallback = { status: 204 }
    clock.advance(HOUR_MS)
    await deliverAll(t)
    const received = receiver.received.filter((r) => r.headers['webhook-id'] !== undefined)
    assert.deepEqual([...new Set(received.map((r) => r.id))].sort(), [byPet.get(failing[0]), byPet.get(failing[1])].sort(), 'the same webhook-ids as the first time')
    // Succeeded now: a second recovery of the range queues nothing.
    assert.deepEqual((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/recover`, { since: iso(since) })).json(), { queued: 0 })
    // The earlier failure, by a range that reaches it and ends before the others.
    const early = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/recover`, { since: iso(start), until: iso(since) })
    assert.deepEqual(early.json(), { queued: 1 })

    const audit = await admin(t, 'GET', `/audit?project=${project.slug}&action=webhook.recovered`)
    assert.equal(audit.statusCode, 200, audit.body)
    assert.deepEqual(
      audit.json<{ details: Record<string, unknown> }[]>().map((entry) => entry.details.queued),
      [1, 0, 0, 2],
    )
  })

  test('a disabled endpoint is refused with 409 endpoint_disabled; since beyond the retention period, or after until, is a 400; another project\'s endpoint is a 404', async () => {
    const project = await t.project()
    const other = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const path = `/projects/${project.slug}/webhooks/${endpoint.id}`
    const old = await admin(t, 'POST', `${path}/recover`, { since: iso(clock.now() - 31 * DAY_MS) })
    assert.equal(old.statusCode, 400, old.body)
    assert.match(old.json<{ message: string }>().message, /within the last 30 days/)
    assert.equal((await admin(t, 'POST', `${path}/recover`, { since: iso(clock.now() - 29 * DAY_MS) })).statusCode, 202)
    assert.equal((await admin(t, 'POST', `${path}/replay`, { since: iso(clock.now() - 31 * DAY_MS) })).statusCode, 400)
    const reversed = await admin(t, 'POST', `${path}/recover`, { since: iso(clock.now() - DAY_MS), until: iso(clock.now() - 2 * DAY_MS) })
    assert.equal(reversed.statusCode, 400)
    assert.equal((await admin(t, 'POST', `${path}/recover`, {})).statusCode, 400, 'since is required')
    assert.equal((await admin(t, 'POST', `/projects/${other.slug}/webhooks/${endpoint.id}/recover`, { since: iso(clock.now() - DAY_MS) })).statusCode, 404)

    assert.equal((await admin(t, 'PATCH', path, { enabled: false })).statusCode, 200)
    for (const action of ['recover', 'replay']) {
      const refused = await admin(t, 'POST', `${path}/${action}`, { since: iso(clock.now() - DAY_MS) })
      assert.equal(refused.statusCode, 409, refused.body)
      assert.equal(refused.json<{ code: string }>().code, 'endpoint_disabled')
      assert.match(refused.json<{ message: string }>().message, /Enable it first/)
    }
  })
})

describe('replay', () => {
  test("an endpoint added later receives the range's events of its types, each once, with their webhook-ids", async () => {
    const project = await t.project()
    const first = await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.deleted'])
    await addPet(project.key, 'Before')
    clock.advance(HOUR_MS)
    const since = clock.now()
    const ids = [await addPet(project.key, 'A'), await addPet(project.key, 'B')]
    const deleted = await t.request({ method: 'DELETE', url: `/v1/pets/${ids[1]}`, headers: bearer(project.key) })
    assert.equal(deleted.statusCode, 204)
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${first.id}/test`)).statusCode, 202)
    await deliverAll(t)
    const sent = new Map(receiver.received.filter((r) => r.event.type === 'pet.created').map((r) => [r.event.data.name, r.id]))

    const late = await Receiver.start()
    try {
      const second = await addEndpoint(t, project.slug, late.url, ['pet.created'])
      const replayed = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since) })
      assert.equal(replayed.statusCode, 202, replayed.body)
      assert.deepEqual(replayed.json(), { queued: 2 })
      await deliverAll(t)
      // Sent side by side: in no particular order.
      assert.deepEqual(
        late.received.map((r) => [r.event.type, r.event.data.name, r.id]).sort(),
        [
          ['pet.created', 'A', sent.get('A')],
          ['pet.created', 'B', sent.get('B')],
        ],
        'only the subscribed types, no test event, nothing before since',
      )
      // Again, and over a larger range: only what the endpoint never had.
      assert.deepEqual((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since) })).json(), { queued: 0 })
      const wider = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since - 2 * HOUR_MS) })
      assert.deepEqual(wider.json(), { queued: 1 })
      await deliverAll(t)
      assert.deepEqual(late.received.map((r) => r.event.data.name).sort(), ['A', 'B', 'Before'])
      // The first endpoint had every event already.
      assert.deepEqual((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${first.id}/replay`, { since: iso(since - 2 * HOUR_MS) })).json(), { queued: 0 })
      // `until` bounds it: nothing of the range is missing, whatever the types.
      assert.equal((await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${second.id}`, { types: ['*'] })).statusCode, 200)
      // Every event of the project is kept: the key.created of the project's key, made before any endpoint, is in the range too.
      const bounded = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since - 2 * HOUR_MS), until: iso(since) })
      assert.deepEqual(bounded.json(), { queued: 1 })
      const all = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since - 2 * HOUR_MS) })
      assert.deepEqual(all.json(), { queued: 1 }, 'pet.deleted, now subscribed to')
    } finally {
      await late.close()
    }
  })
})

describe('replay, twice at once', () => {
  test('two replays of one range side by side queue each event once between them', async () => {
    const project = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const since = clock.now()
    for (const name of ['A', 'B', 'C']) await addPet(project.key, name)
    const second = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const answers = await Promise.all([1, 2].map(() => admin(t, 'POST', `/projects/${project.slug}/webhooks/${second.id}/replay`, { since: iso(since) })))
    assert.deepEqual(answers.map((a) => a.statusCode), [202, 202])
    assert.deepEqual(answers.map((a) => a.json<{ queued: number }>().queued).sort(), [0, 3])
    assert.equal((await deliveriesOf(t, project.slug, second.id)).length, 3)
  })
})

describe('the event list', () => {
  test('newest first, filtered by type and time, across pages by the Link header; another project sees none; a bad filter is a 400', async () => {
    const project = await t.project()
    const other = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.deleted'])
    await addEndpoint(t, other.slug, receiver.url, ['pet.created'])
    await addPet(other.key, 'Elsewhere')
    const times: string[] = []
    const names = ['A', 'B', 'C', 'D', 'E']
    for (const name of names) {
      times.push(iso(clock.now()))
      await addPet(project.key, name)
      clock.advance(60_000)
    }
    const gone = await addPet(project.key, 'F')
    clock.advance(60_000)
    assert.equal((await t.request({ method: 'DELETE', url: `/v1/pets/${gone}`, headers: bearer(project.key) })).statusCode, 204)

    const list = async (query: string) => {
      const response = await admin(t, 'GET', `/projects/${project.slug}/events${query}`)
      assert.equal(response.statusCode, 200, response.body)
      // The project's key.created (every event is kept) is left out: the animals' events are the subject here.
      return { events: response.json<ListedEvent[]>().filter((e) => e.type !== 'key.created'), link: response.headers.link as string | undefined }
    }
    const everything = await list('?limit=100')
    assert.deepEqual(
      everything.events.map((e) => [e.type, e.data.name]),
      [['pet.deleted', 'F'], ['pet.created', 'F'], ['pet.created', 'E'], ['pet.created', 'D'], ['pet.created', 'C'], ['pet.created', 'B'], ['pet.created', 'A']],
    )
    assert.equal(everything.link, undefined)
    assert.ok(everything.events.every((e) => /^msg_/.test(e.id)))
    assert.deepEqual((await list('?type=pet.deleted')).events.map((e) => e.data.name), ['F'])
    const ranged = await list(`?type=pet.created&since=${encodeURIComponent(times[1]!)}&until=${encodeURIComponent(times[3]!)}`)
    assert.deepEqual(ranged.events.map((e) => e.data.name), ['C', 'B'])

    // Pages of 2 by the Link header: every event once, in order, the filter kept.
    const seen: string[] = []
    let next: string | undefined = `/admin/v1/projects/${project.slug}/events?limit=2&type=pet.created`
    while (next) {
      const response = await t.request({ method: 'GET', url: next, headers: bearer(ADMIN_TOKEN) })
      assert.equal(response.statusCode, 200, response.body)
      seen.push(...response.json<ListedEvent[]>().map((e) => String(e.data.name)))
      next = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1]
      if (next) assert.match(next, /type=pet\.created/)
    }
    assert.deepEqual(seen, ['F', 'E', 'D', 'C', 'B', 'A'])

    assert.equal((await admin(t, 'GET', `/projects/${project.slug}/events?since=yesterday`)).statusCode, 400)
    assert.equal((await admin(t, 'GET', `/projects/${project.slug}/events?type=nope`)).statusCode, 400)
    const foreign = (await admin(t, 'GET', `/projects/${other.slug}/events?type=pet.created`)).json<ListedEvent[]>()
    assert.equal(foreign.length, 1)
    assert.equal((await admin(t, 'GET', `/projects/${project.slug}/events?before=${foreign[0]!.id}`)).statusCode, 400, "another project's event is no cursor")
  })

  test('events are pruned by the delivery worker after WEBHOOK_RETENTION_DAYS, which also bounds recovery and replay', async () => {
    await t.close()
    t = await createWebhooksApp({ webhookRetentionDays: 7, webhookWorkerIntervalMs: 60_000 }, { clock, background: true })
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    await addPet(project.key, 'Old')
    await eventually('the event is delivered', async () => (await deliveriesOf(t, project.slug, endpoint.id)).some((d) => d.state === 'succeeded'))
    clock.advance(6 * DAY_MS)
    await addPet(project.key, 'Recent')
    await eventually('the second event is delivered', async () => (await deliveriesOf(t, project.slug, endpoint.id)).filter((d) => d.state === 'succeeded').length === 2)
    const refused = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/replay`, { since: iso(clock.now() - 8 * DAY_MS) })
    assert.equal(refused.statusCode, 400)
    assert.match(refused.json<{ message: string }>().message, /within the last 7 days/)

    clock.advance(2 * DAY_MS)
    t.app.services.webhooks.worker.kick()
    const names = async () => (await admin(t, 'GET', `/projects/${project.slug}/events`)).json<ListedEvent[]>().map((e) => e.data.name)
    await eventually('the event older than 7 days is pruned', async () => (await names()).length === 1)
    assert.deepEqual(await names(), ['Recent'])
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from webhook_deliveries`.execute(t.database.db)
    assert.equal(Number(rows[0]?.n), 1, 'its delivery with it')
  })
})

describe('a project without endpoints', () => {
  test('keeps its events, with no delivery: the event list shows them, and an endpoint added later is sent them by a replay, each once', async () => {
    const project = await t.project()
    clock.advance(60_000)
    const since = clock.now()
    const a = await addPet(project.key, 'A')
    clock.advance(60_000)
    const b = await addPet(project.key, 'B')
    clock.advance(60_000)
    const patched = await t.request({ method: 'PATCH', url: `/v1/pets/${a}`, headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: { name: 'A2' } })
    assert.equal(patched.statusCode, 200, patched.body)
    clock.advance(60_000)
    assert.equal((await t.request({ method: 'DELETE', url: `/v1/pets/${b}`, headers: bearer(project.key) })).statusCode, 204)
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from webhook_deliveries`.execute(t.database.db)
    assert.equal(Number(rows[0]?.n), 0, 'no endpoint, no delivery')

    const listed = await admin(t, 'GET', `/projects/${project.slug}/events`)
    assert.equal(listed.statusCode, 200, listed.body)
    const events = listed.json<ListedEvent[]>()
    assert.deepEqual(
      events.map((e) => [e.type, e.type === 'key.created' ? 'its key' : e.data.id, e.data.name ?? null]),
      [
        ['pet.deleted', b, 'B'],
        ['pet.updated', a, 'A2'],
        ['pet.created', b, 'B'],
        ['pet.created', a, 'A'],
        ['key.created', 'its key', null],
      ],
      'each with the id of its animal',
    )

    clock.advance(60_000)
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.deleted'])
    await deliverAll(t)
    assert.equal(receiver.received.length, 0, 'adding an endpoint sends nothing of the past by itself')
    const replayed = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/replay`, { since: iso(since) })
    assert.equal(replayed.statusCode, 202, replayed.body)
    assert.deepEqual(replayed.json(), { queued: 3 })
    await deliverAll(t)
    assert.deepEqual(
      receiver.received.map((r) => [r.id, r.event.type, r.event.data.id]).sort(),
      events.filter((e) => e.type === 'pet.created' || e.type === 'pet.deleted').map((e) => [e.id, e.type, e.data.id]).sort(),
      'the events of its types, with their webhook-ids',
    )
    assert.deepEqual((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/replay`, { since: iso(since) })).json(), { queued: 0 })
  })

  test('its events are pruned by the delivery worker after WEBHOOK_RETENTION_DAYS', async () => {
    await t.close()
    t = await createWebhooksApp({ webhookRetentionDays: 7, webhookWorkerIntervalMs: 60_000 }, { clock, background: true })
    const project = await t.project()
    await addPet(project.key, 'Old')
    clock.advance(6 * DAY_MS)
    await addPet(project.key, 'Recent')
    const names = async () => (await admin(t, 'GET', `/projects/${project.slug}/events`)).json<ListedEvent[]>().map((e) => e.data.name ?? e.type)
    assert.deepEqual((await names()).sort(), ['Old', 'Recent', 'key.created'])
    clock.advance(2 * DAY_MS)
    t.app.services.webhooks.worker.kick()
    await eventually('the event older than 7 days is pruned', async () => (await names()).length === 1)
    assert.deepEqual(await names(), ['Recent'])
  })
})
