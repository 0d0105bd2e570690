/**
 * Webhooks that need the test DNS (pebble-challtestsrv) and CA (Pebble): domain and certificate
 * events from the real checks and orders, and addresses judged by what DNS answers at connect
 * time, a name that resolves to a refused address and one whose answer changes included.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { Clock } from '../src/clock.js'
import { admin } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { addDomain, DNS_TARGET, DomainsSuite, uniqueDomain, verifyDomain } from './helpers/domains.js'
import { freePorts, pebbleMissing, startPebble } from './helpers/pebble.js'
import { assertSigned, Receiver } from './helpers/receiver.js'
import { addEndpoint, deliverAll, deliveriesOf, grantPrivateNetworks } from './helpers/webhooks.js'

/** Real time, which a test may move forward (to reach a retry) without waiting for it. */
class OffsetClock implements Clock {
  offsetMs = 0
  now(): number {
    return Date.now() + this.offsetMs
  }
}

const suite = new DomainsSuite()
let receiver: Receiver

describe('webhooks with DNS and a CA', { skip: pebbleMissing, timeout: 180_000 }, () => {
  suite.hooks()
  beforeEach(async () => {
    receiver = await Receiver.start()
  })
  afterEach(async () => receiver.close())

  test('domain.failed, domain.verified, certificate.failing (a CAA record) and certificate.issued (Pebble), each once', async () => {
    const [httpPort = 0] = await freePorts(1)
    const pebble = await startPebble({ httpPort, dnsServer: suite.dns.dnsServer })
    const clock = new OffsetClock()
    const t = await suite.app(
      {
        certificateEncryptionKey: randomBytes(32).toString('hex'),
        webhookEncryptionKey: randomBytes(32).toString('hex'),
        webhookAllowedNetworks: ['127.0.0.0/8'],
        acmeDirectoryUrl: pebble.directoryUrl,
        acmeCaFile: pebble.caFile,
        acmeCaaDomains: ['letsencrypt.org'],
        domainWorkerIntervalMs: 250,
        webhookWorkerIntervalMs: 100,
      },
      { clock, background: true },
    )
    await t.app.listen({ port: httpPort, host: '127.0.0.1' })
    const project = await t.project({ plan: 'pro' })
    await grantPrivateNetworks(t, project.slug)
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['domain.verified', 'domain.failed', 'certificate.issued', 'certificate.failing'])
    const { name, apex } = uniqueDomain('hooks')
    await addDomain(t, project.slug, name)
    assert.equal((await verifyDomain(t, project.slug, name)).status.state, 'failed')
    assert.equal((await verifyDomain(t, project.slug, name)).status.state, 'failed', 'still failing: no second event')
    await suite.dns.addCaa(apex, [{ tag: 'issue', value: 'sectigo.com' }])
    await suite.dns.setCname(name, DNS_TARGET)
    assert.equal((await verifyDomain(t, project.slug, name)).status.state, 'verified')

    const [failing] = await receiver.waitFor('certificate.failing', 1, 30_000)
    assert.match(String(failing!.event.data.reason), /CAA record .* does not allow/)
    await suite.dns.clearCaa(apex)
    await suite.dns.addCaa(apex, [{ tag: 'issue', value: 'letsencrypt.org' }])
    clock.offsetMs += 6 * 60_000
    const [issued] = await receiver.waitFor('certificate.issued', 1, 60_000)
    assert.equal(issued!.event.data.domain, name)
    assert.equal(issued!.event.data.renewal, false)

    assert.deepEqual(
      receiver.received.map((r) => [r.event.type, r.event.data.domain]),
      [
        ['domain.failed', name],
        ['domain.verified', name],
        ['certificate.failing', name],
        ['certificate.issued', name],
      ],
    )
    // Each matches its schema in openapi.json (the receiver checks every event it gets).
    assert.deepEqual([...receiver.validTypes].sort(), ['certificate.failing', 'certificate.issued', 'domain.failed', 'domain.verified'])
    assert.match(String(receiver.of('domain.failed')[0]!.event.data.reason), /CNAME/)
    for (const event of receiver.received) assertSigned(event, endpoint.secret)
  })
})

describe('addresses as DNS answers them', { skip: pebbleMissing }, () => {
  suite.hooks()
  let t: TestApp
  beforeEach(async () => {
    receiver = await Receiver.start()
  })
  afterEach(async () => receiver.close())

  test('a name that resolves to a refused address is refused when connecting; a changed answer is judged again (DNS rebinding)', async () => {
    const port = new URL(receiver.url).port
    t = suite.track(
      await suite.app({
        webhookEncryptionKey: randomBytes(32).toString('hex'),
        // Only this one loopback address is allowed, as an operator would allow one private host.
        webhookAllowedNetworks: ['127.0.0.1/32'],
      }),
    )
    await t.app.services.webhooks.worker.close()
    const project = await t.project()
    await grantPrivateNetworks(t, project.slug)
    const blocked = `blocked-${process.pid}.hooks.test`
    const rebinding = `rebinding-${process.pid}.hooks.test`
    const mixed = `mixed-${process.pid}.hooks.test`
    await suite.dns.addA(blocked, ['127.0.0.2'])
    await suite.dns.addA(rebinding, ['127.0.0.1'])
    await suite.dns.addA(mixed, ['10.0.0.1', '127.0.0.1'])

    // Resolving now only to refused addresses: a 400 naming the field, at once.
    const now = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: `http://${blocked}:${port}/hooks`, types: ['pet.created'] })
    assert.equal(now.statusCode, 400, now.body)
    assert.match(now.json<{ message: string }>().message, new RegExp(`^"url" is refused: ${blocked} resolves only to refused addresses`))
    // One allowed address among them is enough (attempts connect to that one).
    await addEndpoint(t, project.slug, `http://${mixed}:${port}/hooks`, ['order.placed'])

    // A name added before its record exists, which then points at a refused address, is refused at each attempt.
    await suite.dns.clearA(blocked)
    const refused = await addEndpoint(t, project.slug, `http://${blocked}:${port}/hooks`, ['pet.created'])
    await suite.dns.addA(blocked, ['127.0.0.2'])
    const changing = await addEndpoint(t, project.slug, `http://${rebinding}:${port}/hooks`, ['pet.created'])

    const create = (name: string) =>
      t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name, categoryId: 1 }) })
    await create('A')
    await deliverAll(t)
    const [toBlocked] = await deliveriesOf(t, project.slug, refused.id)
    assert.match(toBlocked!.lastError!, new RegExp(`^Refused: ${blocked} resolves only to refused addresses: plain http may only reach the networks of WEBHOOK_ALLOWED_NETWORKS`))
    assert.equal(toBlocked!.state, 'pending', 'retried later: DNS may change back')
    const [first] = await deliveriesOf(t, project.slug, changing.id)
    assert.equal(first!.state, 'succeeded')
    assert.equal(receiver.received.length, 1)

    // The name now points elsewhere: the next connection is checked against the new answer.
    await suite.dns.clearA(rebinding)
    await suite.dns.addA(rebinding, ['169.254.169.254'])
    await create('B')
    await deliverAll(t)
    const [second] = await deliveriesOf(t, project.slug, changing.id)
    assert.match(second!.lastError!, /^Refused: .* resolves only to refused addresses/)
    assert.equal(receiver.received.length, 1, 'nothing more reached the receiver')

    const listed = await admin(t, 'GET', `/projects/${project.slug}/webhooks`)
    assert.equal(listed.json<unknown[]>().length, 3)
  })
})
