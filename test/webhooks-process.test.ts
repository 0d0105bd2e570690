/**
 * Webhooks of the BUILT service, on the suite's back end: a delivery in flight when its server is
 * killed with SIGKILL is sent again (the same webhook-id) by the restarted server once its lease
 * runs out, and nothing is lost; and the `webhooks` CLI commands, each with --json.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, before, describe, test } from 'node:test'
import { assertBuilt, cleanup, cliJson, makeDataDir, requestJson, runCli, startServer } from './helpers/process.js'
import { assertSigned, Receiver } from './helpers/receiver.js'

interface Endpoint {
  id: string
  url: string
  types: string[]
  enabled: boolean
  secret: string
  previousSecretExpiresAt: string | null
}
interface Delivery {
  id: number
  eventId: string
  eventType: string
  state: string
  attempts: number
  manual: boolean
}

let receiver: Receiver | undefined

describe('webhooks of the built service', { timeout: 300_000 }, () => {
  before(assertBuilt)
  afterEach(async () => {
    await receiver?.close()
    await cleanup()
  })

  test('kill -9 while a delivery is in flight: the restarted server sends it again with the same id, and it succeeds', async () => {
    receiver = await Receiver.start()
    const dataDir = makeDataDir()
    const env = {
      WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      // A short attempt (and so a short lease) keeps the test quick.
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_WORKER_INTERVAL_MS: '200',
    }
    const options = { dataDir, env }
    await cliJson(['projects', 'create', 'acme', '--json'], options)
    await cliJson(['projects', 'set-webhook-private-networks', 'acme', 'on', '--json'], options)
    const { key } = await cliJson<{ key: string }>(['keys', 'create', '--project', 'acme', '--json'], options)
    const endpoint = await cliJson<Endpoint>(['webhooks', 'add', '--project', 'acme', '--url', receiver.url, '--types', 'pet.created,order.placed', '--json'], options)
    assert.match(endpoint.secret, /^whsec_/)

    let server = await startServer({ dataDir, env })
    receiver.answers.push('hang')
    const created = await requestJson<{ id: number }>(server, 'POST', '/v1/pets', key, { name: 'Rex', categoryId: 1 })
    assert.equal(created.status, 201)
    await receiver.waitFor('pet.created', 1)
    await server.kill()

    server = await startServer({ dataDir, env })
    const [first, second] = await receiver.waitFor('pet.created', 2, 30_000)
    assert.equal(second!.id, first!.id, 'the same webhook-id')
    assert.equal(second!.body, first!.body, 'the same body')
    assertSigned(second!, endpoint.secret)
    assert.deepEqual(second!.event.data, { id: created.body.id, name: 'Rex', categoryId: 1, status: 'available' })
    const deliveries = await cliJson<Delivery[]>(['webhooks', 'deliveries', endpoint.id, '--project', 'acme', '--json'], options)
    assert.equal(deliveries.length, 1)
    assert.equal(deliveries[0]!.state, 'succeeded')
    assert.equal(deliveries[0]!.eventId, first!.id)
    await server.stop()
  })

  test('the CLI: add, list, update, rotate-secret, test, redeliver, deliveries with filters, attempts, remove; bad input is one clear line', async () => {
    receiver = await Receiver.start()
    const dataDir = makeDataDir()
    const env = { WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_WORKER_INTERVAL_MS: '100' }
    const options = { dataDir, env }
    await cliJson(['projects', 'create', 'shelter', '--json'], options)
    await cliJson(['projects', 'set-webhook-private-networks', 'shelter', 'on', '--json'], options)
    const added = await cliJson<Endpoint>(['webhooks', 'add', '--project', 'shelter', '--url', receiver.url, '--types', '*', '--json'], options)
    const listed = await cliJson<Endpoint[]>(['webhooks', 'list', '--project', 'shelter', '--json'], options)
    assert.deepEqual(
      listed.map((e) => [e.id, e.types, e.enabled]),
      [[added.id, ['*'], true]],
    )
    assert.ok(!JSON.stringify(listed).includes(added.secret), 'list never shows the secret')
    const human = await runCli(['webhooks', 'list', '--project', 'shelter'], options)
    assert.match(human.stdout, new RegExp(`${added.id}\\s+${receiver.url.replace(/[/.]/g, '\\$&')}\\s+\\*\\s+yes`))

    const updated = await cliJson<Endpoint>(['webhooks', 'update', added.id, '--project', 'shelter', '--types', 'pet.created,key.created', '--disable', '--json'], options)
    assert.deepEqual([updated.types, updated.enabled], [['key.created', 'pet.created'], false])
    const rotated = await cliJson<Endpoint>(['webhooks', 'rotate-secret', added.id, '--project', 'shelter', '--overlap-hours', '0', '--json'], options)
    assert.notEqual(rotated.secret, added.secret)
    assert.equal(rotated.previousSecretExpiresAt, null)
    await cliJson(['webhooks', 'update', added.id, '--project', 'shelter', '--enable', '--json'], options)

    const server = await startServer({ dataDir, env })
    const test = await cliJson<Delivery>(['webhooks', 'test', added.id, '--project', 'shelter', '--json'], options)
    assert.equal(test.eventType, 'webhook.test')
    const [received] = await receiver.waitFor('webhook.test')
    assertSigned(received!, rotated.secret)
    assert.equal(received!.id, test.eventId)
    const again = await cliJson<Delivery>(['webhooks', 'redeliver', added.id, String(test.id), '--project', 'shelter', '--json'], options)
    assert.equal(again.eventId, test.eventId)
    await receiver.waitFor('webhook.test', 2)
    const log = await cliJson<Delivery[]>(['webhooks', 'deliveries', added.id, '--project', 'shelter', '--limit', '1', '--json'], options)
    assert.deepEqual(
      log.map((d) => [d.id, d.manual]),
      [[again.id, true]],
    )
    const byId = await cliJson<Delivery[]>(['webhooks', 'deliveries', added.id, '--project', 'shelter', '--webhook-id', test.eventId, '--state', 'succeeded', '--type', 'webhook.test', '--json'], options)
    assert.deepEqual(byId.map((d) => d.id), [again.id, test.id])
    assert.deepEqual(await cliJson(['webhooks', 'deliveries', added.id, '--project', 'shelter', '--until', '2000-01-01T00:00:00Z', '--json'], options), [])
    const attempts = await cliJson<{ status: number; request: { headers: Record<string, string>; body: string } }[]>(['webhooks', 'attempts', added.id, String(test.id), '--project', 'shelter', '--json'], options)
    assert.deepEqual(attempts.map((a) => [a.status, a.request.headers['webhook-id'], a.request.body]), [[204, test.eventId, received!.body]])
    const shown = await runCli(['webhooks', 'attempts', added.id, String(test.id), '--project', 'shelter'], options)
    assert.match(shown.stdout, new RegExp(`^Attempt 1 at .*: HTTP 2\\d\\d, \\d+ ms\n  > content-type: application/json\n`))
    assert.match(shown.stdout, new RegExp(`> webhook-id: ${test.eventId}`))
    const badTime = await runCli(['webhooks', 'deliveries', added.id, '--project', 'shelter', '--since', 'yesterday'], options)
    assert.equal(badTime.code, 1)
    assert.match(badTime.stderr, /since must be a date and time/)
    await server.stop()

    const bad = await runCli(['webhooks', 'add', '--project', 'shelter', '--url', 'ftp://example.com/', '--types', 'pet.created'], options)
    assert.equal(bad.code, 1)
    assert.equal(bad.stderr, 'adoption-store: "url" must be an https URL, not ftp:.\n')
    const unknown = await runCli(['webhooks', 'add', '--project', 'shelter', '--url', 'https://example.com/', '--types', 'pet.adopted'], options)
    assert.notEqual(unknown.code, 0)
    assert.match(unknown.stderr, /not: pet\.adopted/)
    assert.deepEqual(await cliJson(['webhooks', 'remove', added.id, '--project', 'shelter', '--json'], options), { id: added.id, removed: true })
    assert.deepEqual(await cliJson(['webhooks', 'list', '--project', 'shelter', '--json'], options), [])
  })
})

describe('recovery, replay and the event list from the CLI of the built service', { timeout: 300_000 }, () => {
  before(assertBuilt)
  afterEach(async () => {
    await receiver?.close()
    await cleanup()
  })

  test('the CLI: events, replay to an endpoint added later (each event once), recover; a disabled endpoint and a time beyond the retention period are refused', async () => {
    receiver = await Receiver.start()
    const late = await Receiver.start()
    try {
      const dataDir = makeDataDir()
      const env = { WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_WORKER_INTERVAL_MS: '100' }
      const options = { dataDir, env }
      await cliJson(['projects', 'create', 'hub', '--json'], options)
      await cliJson(['projects', 'set-webhook-private-networks', 'hub', 'on', '--json'], options)
      const { key } = await cliJson<{ key: string }>(['keys', 'create', '--project', 'hub', '--json'], options)
      const first = await cliJson<Endpoint>(['webhooks', 'add', '--project', 'hub', '--url', receiver.url, '--types', 'pet.created', '--json'], options)
      const server = await startServer({ dataDir, env })
      for (const name of ['Rex', 'Tom']) assert.equal((await requestJson(server, 'POST', '/v1/pets', key, { name, categoryId: 1 })).status, 201)
      const sent = await receiver.waitFor('pet.created', 2)

      type Event = { id: string; type: string; createdAt: string; data: { name: string } }
      const events = await cliJson<Event[]>(['webhooks', 'events', '--project', 'hub', '--json'], options)
      // Every event of the project is kept: the key.created of its key too, made before any endpoint.
      assert.deepEqual(events.map((e) => e.type), ['pet.created', 'pet.created', 'key.created'])
      events.pop()
      assert.deepEqual(events.map((e) => e.id).sort(), sent.map((r) => r.id).sort())
      const newest = await cliJson<Event[]>(['webhooks', 'events', '--project', 'hub', '--type', 'pet.created', '--limit', '1', '--json'], options)
      assert.deepEqual(newest, events.slice(0, 1))
      const human = await runCli(['webhooks', 'events', '--project', 'hub'], options)
      assert.match(human.stdout, new RegExp(`${events[0]!.id}\\s+pet\\.created\\s+${events[0]!.createdAt.replace(/\./g, '\\.')}`))

      const second = await cliJson<Endpoint>(['webhooks', 'add', '--project', 'hub', '--url', late.url, '--types', 'pet.created', '--json'], options)
      const since = events[events.length - 1]!.createdAt
      assert.deepEqual(await cliJson(['webhooks', 'replay', second.id, '--project', 'hub', '--since', since, '--json'], options), { queued: 2 })
      const replayed = await late.waitFor('pet.created', 2)
      assert.deepEqual(replayed.map((r) => r.id).sort(), sent.map((r) => r.id).sort(), 'the same webhook-ids')
      const again = await runCli(['webhooks', 'replay', second.id, '--project', 'hub', '--since', since], options)
      assert.equal(again.stdout, `0 events are due for endpoint ${second.id}; the servers send them.\n`)
      assert.deepEqual(await cliJson(['webhooks', 'recover', first.id, '--project', 'hub', '--since', since, '--json'], options), { queued: 0 }, 'nothing failed')
      await server.stop()

      const old = await runCli(['webhooks', 'recover', first.id, '--project', 'hub', '--since', '2000-01-01T00:00:00Z'], options)
      assert.equal(old.code, 1)
      assert.match(old.stderr, /since must be within the last 30 days/)
      await cliJson(['webhooks', 'update', first.id, '--project', 'hub', '--disable', '--json'], options)
      const disabled = await runCli(['webhooks', 'recover', first.id, '--project', 'hub', '--since', since], options)
      assert.equal(disabled.code, 1)
      assert.match(disabled.stderr, /is disabled.*Enable it first/)
    } finally {
      await late.close()
    }
  })
})
