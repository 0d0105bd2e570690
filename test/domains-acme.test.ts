/**
 * Certificates end to end, against Debian's Pebble (a test ACME CA) and pebble-challtestsrv (its
 * DNS) on loopback: Pebble validates HTTP-01 on the service's own HTTP port, where the service
 * answers from its database; the certificate is stored encrypted and served over HTTPS by SNI.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Clock } from '../src/clock.js'
import type { Domain } from '../src/domains/domains.schemas.js'
import { listenHttps } from '../src/domains/https.listener.js'
import { FORM_COOKIE, MIN_FILL_MS } from '../src/site/site.routes.js'
import { admin } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { addDomain, DNS_TARGET, DomainsSuite, sendTo, uniqueDomain, verifyDomain } from './helpers/domains.js'
import { freePorts, type Pebble, pebbleMissing, startPebble } from './helpers/pebble.js'

/** Real time, which a test may move forward (to reach a renewal) without waiting for it. */
class OffsetClock implements Clock {
  offsetMs = 0
  now(): number {
    return Date.now() + this.offsetMs
  }
}

interface Service {
  t: TestApp
  pebble: Pebble
  clock: OffsetClock
  http: string
  https: string
}

const suite = new DomainsSuite()

/** A service listening on loopback ports, with a Pebble of its own that validates on its HTTP port. */
async function service(): Promise<Service> {
  const [httpPort = 0, httpsPort = 0] = await freePorts(2)
  const pebble = await startPebble({ httpPort, dnsServer: suite.dns.dnsServer })
  const clock = new OffsetClock()
  const t = await suite.app(
    {
      certificateEncryptionKey: randomBytes(32).toString('hex'),
      acmeDirectoryUrl: pebble.directoryUrl,
      acmeCaFile: pebble.caFile,
      acmeCaaDomains: ['letsencrypt.org'],
      // The worker runs as in production, passes starting when Verify verifies a domain; where
      // production would wait for its timer (a retry or a renewal come due), the test kicks it
      // after moving the clock. No pass runs between a test's steps unasked.
    },
    { clock, background: true },
  )
  await t.app.listen({ port: httpPort, host: '127.0.0.1' })
  await listenHttps(t.app, { port: httpsPort, host: '127.0.0.1' })
  return { t, pebble, clock, http: `http://127.0.0.1:${httpPort}`, https: `https://127.0.0.1:${httpsPort}` }
}

async function waitForCertificate(t: TestApp, slug: string, name: string, until: (domain: Domain) => boolean, timeoutMs = 60_000): Promise<Domain> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const domain = (await admin(t, 'GET', `/projects/${slug}/domains/${name}`)).json<Domain>()
    if (until(domain)) return domain
    if (Date.now() > deadline) throw new Error(`certificate of ${name} still ${JSON.stringify(domain.certificate)} after ${timeoutMs} ms`)
    await sleep(100)
  }
}

describe('certificates by ACME (Pebble)', { skip: pebbleMissing, timeout: 180_000 }, () => {
  suite.hooks()

  test('add → verify fails naming the CNAME → CNAME set → verified → certificate by HTTP-01 → HTTPS by SNI → redirect 301 → remove refuses the host', async () => {
    const { t, pebble, clock, http, https } = await service()
    const free = await t.project({ plan: 'free' })
    const pro = await t.project({ plan: 'pro' })
    const { name, apex } = uniqueDomain('shop')

    const refused = await admin(t, 'POST', `/projects/${free.slug}/domains`, { name })
    assert.equal(refused.statusCode, 403)
    assert.match(refused.json<{ message: string }>().message, /plan pro or above/)
    await addDomain(t, pro.slug, name)

    const failed = await verifyDomain(t, pro.slug, name)
    assert.equal(failed.status.state, 'failed')
    assert.match(failed.status.reason ?? '', /No CNAME record for shop\./)
    assert.equal(failed.certificate.state, 'pending')

    await suite.dns.setCname(name, DNS_TARGET)
    const verified = await verifyDomain(t, pro.slug, name)
    assert.equal(verified.status.state, 'verified')

    const issued = await waitForCertificate(t, pro.slug, name, (d) => d.certificate.state === 'issued' || d.certificate.state === 'failed')
    assert.equal(issued.certificate.state, 'issued', issued.certificate.reason ?? '')
    const { notBefore, notAfter, renewAt, nextCheckAt } = issued.certificate
    assert.ok(notBefore && notAfter && renewAt)
    const lifetime = Date.parse(notAfter) - Date.parse(notBefore)
    assert.ok(Math.abs(Date.parse(renewAt) - Date.parse(notBefore) - (lifetime * 2) / 3) < 1_000, 'renewal at two thirds of the lifetime')
    assert.equal(nextCheckAt, renewAt)

    // The private key is stored encrypted, and no challenge is left behind.
    const stored = await t.database.db.selectFrom('certificates').select(['private_key', 'certificate_pem']).executeTakeFirstOrThrow()
    assert.match(stored.private_key, /^v1:/)
    assert.doesNotMatch(stored.private_key, /PRIVATE KEY/)
    assert.match(stored.certificate_pem, /BEGIN CERTIFICATE/)
    assert.equal((await t.database.db.selectFrom('acme_challenges').selectAll().execute()).length, 0)

    // HTTPS with SNI for the name, trusting Pebble's root, reaches the project's API.
    const root = await pebble.issuingRoot()
    const secure = await sendTo(`${https}/v1/pets`, { host: name, ca: root, headers: bearer(pro.key) })
    assert.equal(secure.status, 200, secure.body)
    assert.equal(secure.body, '[]')
    const otherKey = await sendTo(`${https}/v1/pets`, { host: name, ca: root, headers: bearer(free.key) })
    assert.equal(otherKey.status, 401)

    // The shelter's adoption site at its own domain, over HTTPS: its addresses say https, its
    // form's cookie is Secure, and an enquiry sent there becomes an order of the project.
    const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(pro.key), payload: { name: 'Biscuit', categoryId: 1, status: 'available' } })
    const petId = created.json<{ id: number }>().id
    const page = (path: string) => sendTo(`${https}${path}`, { host: name, ca: root, headers: { accept: 'text/html' } })
    const listing = await page('/')
    assert.equal(listing.status, 200, listing.body)
    assert.match(listing.body, /<h2>Biscuit<\/h2>/)
    const animal = await page(`/animals/${petId}`)
    assert.equal(animal.status, 200, animal.body)
    assert.ok(animal.body.includes(`<link rel="canonical" href="https://${name}/animals/${petId}">`), 'the canonical address is the domain, over https')
    const cookie = new RegExp(`${FORM_COOKIE}=([^;]+);[^,]*; Secure`).exec(String(animal.headers['set-cookie']))?.[1]
    assert.ok(cookie, `the form's cookie is Secure: ${String(animal.headers['set-cookie'])}`)
    const token = /name="token" value="([^"]+)"/.exec(animal.body)?.[1]
    assert.ok(token)
    clock.offsetMs += MIN_FILL_MS + 1_000
    const enquiry = new URLSearchParams({ token, name: 'Ada', email: 'ada@example.org' }).toString()
    const sent = await sendTo(`${https}/animals/${petId}/enquiry`, { host: name, ca: root, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${FORM_COOKIE}=${cookie}` }, body: enquiry })
    assert.equal(sent.status, 200, sent.body)
    const placed = (await admin(t, 'GET', `/projects/${pro.slug}/orders`)).json<{ petId: number; enquiry?: { name: string } }[]>()
    assert.deepEqual(placed.map((order) => [order.petId, order.enquiry?.name]), [[petId, 'Ada']])
    // No certificate is presented for a name that has none (no other project's certificate either).
    await assert.rejects(sendTo(`${https}/v1/pets`, { host: `${free.slug}.platform.test`, ca: root }))
    await assert.rejects(sendTo(`${https}/v1/pets`, { host: `other.${apex}`, ca: root }))

    // A redirect domain answers 301 to the same path and query.
    const www = `www.${apex}`
    await addDomain(t, pro.slug, www)
    await suite.dns.setCname(www, DNS_TARGET)
    assert.equal((await verifyDomain(t, pro.slug, www)).status.state, 'verified')
    assert.equal((await admin(t, 'POST', `/projects/${pro.slug}/domains/redirects`, { from: www, to: name })).statusCode, 200)
    const moved = await sendTo(`${http}/v1/pets?status=available`, { host: www })
    assert.equal(moved.status, 301)
    assert.equal(moved.headers.location, `http://${name}/v1/pets?status=available`)

    // Remove: the very next request to the host is refused, over HTTPS (no certificate) and HTTP.
    assert.equal((await admin(t, 'DELETE', `/projects/${pro.slug}/domains/${name}`)).statusCode, 204)
    await assert.rejects(sendTo(`${https}/v1/pets`, { host: name, ca: root, headers: bearer(pro.key) }))
    const plain = await sendTo(`${http}/v1/pets`, { host: name, headers: bearer(pro.key) })
    assert.equal(plain.status, 404)
    assert.equal(JSON.parse(plain.body).code, 'unknown_host')
  })

  test('a CAA record for another CA is named as the cause; allowing the CA lets the retry through', async () => {
    const { t, clock } = await service()
    const pro = await t.project({ plan: 'pro' })
    const { name, apex } = uniqueDomain('caa')
    await addDomain(t, pro.slug, name)
    // On the parent: RFC 8659 climbs from the name towards the root.
    await suite.dns.addCaa(apex, [{ tag: 'issue', value: 'sectigo.com' }])
    await suite.dns.setCname(name, DNS_TARGET)
    await verifyDomain(t, pro.slug, name)
    const blocked = await waitForCertificate(t, pro.slug, name, (d) => d.certificate.state === 'failed')
    assert.equal(
      blocked.certificate.reason,
      `The CAA record ${apex} CAA 0 issue "sectigo.com" does not allow the certificate authority (letsencrypt.org) to issue for ${name}: add a CAA record ${apex} CAA 0 issue "letsencrypt.org", or remove the blocking one.`,
    )
    assert.ok(blocked.certificate.nextCheckAt && Date.parse(blocked.certificate.nextCheckAt) > clock.now(), 'retried later, with backoff')

    await suite.dns.clearCaa(apex)
    await suite.dns.addCaa(apex, [{ tag: 'issue', value: 'letsencrypt.org' }])
    clock.offsetMs += 6 * 60_000
    t.app.domains.worker.kick()
    const issued = await waitForCertificate(t, pro.slug, name, (d) => d.certificate.state === 'issued')
    assert.equal(issued.certificate.reason, null)

    // Both moves of the certificate are in the audit log, newest first, as the system's.
    const audit = await admin(t, 'GET', `/audit?project=${pro.slug}&targetType=domain&targetId=${name}&action=domain.certificate_changed`)
    assert.equal(audit.statusCode, 200, audit.body)
    const moves = audit.json<{ actor: unknown; action: string; details: Record<string, unknown> }[]>()
    assert.deepEqual(
      moves.map(({ actor, action, details }) => ({ actor, action, details })),
      [
        { actor: { kind: 'system', name: 'system' }, action: 'domain.certificate_changed', details: { from: 'failed', to: 'issued', notAfter: issued.certificate.notAfter, renewal: false } },
        { actor: { kind: 'system', name: 'system' }, action: 'domain.certificate_changed', details: { from: 'pending', to: 'failed', reason: blocked.certificate.reason, attempts: 1 } },
      ],
    )
  })

  test('an apex domain whose A records equal the target\'s gets its certificate; it is renewed two thirds into its lifetime', async () => {
    const { t, clock, pebble, https } = await service()
    const pro = await t.project({ plan: 'enterprise', perMinute: 100, perDay: 1000 })
    const { apex } = uniqueDomain()
    await addDomain(t, pro.slug, apex)
    await suite.dns.addA(apex, ['127.0.0.1'])
    assert.equal((await verifyDomain(t, pro.slug, apex)).status.state, 'verified')
    const first = await waitForCertificate(t, pro.slug, apex, (d) => d.certificate.state === 'issued')
    const root = await pebble.issuingRoot()
    assert.equal((await sendTo(`${https}/v1/pets`, { host: apex, ca: root, headers: bearer(pro.key) })).status, 200)

    const pem = async () => (await t.database.db.selectFrom('certificates').select('certificate_pem').executeTakeFirstOrThrow()).certificate_pem
    const before = await pem()
    clock.offsetMs = Date.parse(first.certificate.renewAt ?? '') - Date.now() + 1_000
    t.app.domains.worker.kick()
    const deadline = Date.now() + 60_000
    while ((await pem()) === before) {
      assert.ok(Date.now() < deadline, 'renewed within a minute')
      await sleep(100)
    }
    // Back to real time: the CA dated the new certificate by it.
    clock.offsetMs = 0
    const renewed = await waitForCertificate(t, pro.slug, apex, (d) => d.certificate.state === 'issued')
    assert.ok(Date.parse(renewed.certificate.nextCheckAt ?? '') > clock.now(), 'the next renewal is scheduled in the future')
    assert.equal((await sendTo(`${https}/v1/pets`, { host: apex, ca: root, headers: bearer(pro.key) })).status, 200)
  })
})
