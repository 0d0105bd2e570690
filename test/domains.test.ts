/**
 * Custom domains through the HTTP boundary: the admin API (add, list, verify, remove, primary,
 * redirects) and host routing, on a fresh database each, with DNS answered by a real
 * pebble-challtestsrv on loopback through the service's own resolver settings.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Domain, DomainSettings } from '../src/domains/domains.schemas.js'
import { insertChallenge } from '../src/domains/domains.repository.js'
import { ADMIN_TOKEN, admin } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { addDomain, DNS_TARGET, DomainsSuite, domainSettings, PLATFORM_DOMAIN, TARGET_ADDRESS, uniqueDomain, verifiedApexAndWww, verifiedDomain, verifyDomain } from './helpers/domains.js'
import { pebbleMissing } from './helpers/pebble.js'

const suite = new DomainsSuite()
const app = (extra?: Parameters<DomainsSuite['app']>[0]): Promise<TestApp> => suite.app(extra)

describe('custom domains', { skip: pebbleMissing }, () => {
  suite.hooks()

  describe('admin API access', () => {
    test('without ADMIN_TOKEN a bearer is 401, saying the token is disabled (users sign in instead)', async () => {
      const t = suite.track(await createTestApp())
      const response = await t.request({ method: 'GET', url: '/admin/v1/projects/default/domains', headers: bearer(ADMIN_TOKEN) })
      assert.equal(response.statusCode, 401)
      assert.match(response.json<{ message: string }>().message, /admin token is disabled on this instance \(ADMIN_TOKEN is not set\): sign in instead/)
      assert.match(String(response.headers['www-authenticate']), /error="invalid_token"/)
    })

    test('a missing or wrong operator token is 401 with a Bearer challenge; an API key is not an operator token', async () => {
      const t = await app()
      const project = await t.project({ plan: 'pro' })
      const missing = await t.request({ method: 'GET', url: `/admin/v1/projects/${project.slug}/domains` })
      assert.equal(missing.statusCode, 401)
      assert.equal(missing.headers['www-authenticate'], 'Bearer realm="adoption-store-admin"')
      const wrong = await admin(t, 'GET', `/projects/${project.slug}/domains`, undefined, project.key)
      assert.equal(wrong.statusCode, 401)
      assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/)
    })

    test('the admin API has its own OpenAPI document; the public one does not list it', async () => {
      const t = await app()
      const doc = (await admin(t, 'GET', '/openapi.json')).json<{ paths: Record<string, Record<string, { operationId: string }>> }>()
      const operations = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
      for (const operation of ['addDomain', 'addRedirect', 'getDomain', 'listDomains', 'removeDomain', 'removeRedirect', 'setPrimaryDomain', 'verifyDomain']) {
        assert.ok(operations.includes(operation), operation)
      }
      const publicDoc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: Record<string, unknown> }>()
      assert.ok(Object.keys(publicDoc.paths).every((path) => !path.includes('domains')))
    })

    test('admin requests are not rate limited', async () => {
      const t = await app()
      const project = await t.project({ plan: 'pro' })
      const response = await admin(t, 'GET', `/projects/${project.slug}/domains`)
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['x-ratelimit-limit'], undefined)
    })
  })

  describe('adding a domain', () => {
    test('the free plan is refused with the plan named; pro gets the CNAME record to create', async () => {
      const t = await app()
      const free = await t.project({ plan: 'free' })
      const { name } = uniqueDomain()
      const refused = await admin(t, 'POST', `/projects/${free.slug}/domains`, { name })
      assert.equal(refused.statusCode, 403)
      assert.equal(refused.json<{ code: string }>().code, 'plan_required')
      assert.match(refused.json<{ message: string }>().message, /plan pro or above.*on plan free/)

      const pro = await t.project({ plan: 'pro' })
      const created = await admin(t, 'POST', `/projects/${pro.slug}/domains`, { name })
      assert.equal(created.statusCode, 201)
      assert.equal(created.headers.location, `/admin/v1/projects/${pro.slug}/domains/${name}`)
      const domain = created.json<Domain>()
      assert.equal(domain.name, name)
      assert.equal(domain.apex, false)
      assert.deepEqual({ ...domain.dnsRecord, note: undefined }, { type: 'CNAME', name: 'shop', value: DNS_TARGET, ttl: 3600, note: undefined })
      assert.equal(domain.status.state, 'pending')
      assert.equal(domain.certificate.state, 'pending')
      assert.ok(domain.status.nextCheckAt, 'a new domain is checked in the background')
    })

    test('an apex domain gets ALIAS/ANAME, with the note that not every provider supports it', async () => {
      const t = await app()
      const pro = await t.project({ plan: 'business' })
      const { apex } = uniqueDomain()
      const domain = await addDomain(t, pro.slug, apex)
      assert.equal(domain.apex, true)
      assert.equal(domain.dnsRecord.type, 'ALIAS')
      assert.equal(domain.dnsRecord.name, '@')
      assert.equal(domain.dnsRecord.value, DNS_TARGET)
      assert.match(domain.dnsRecord.note, /ALIAS or ANAME.*not every DNS provider supports them/)
    })

    test('names are checked: IDNA, labels, length, IP literals, the platform domain, public suffixes', async () => {
      const t = await app()
      const pro = await t.project({ plan: 'pro' })
      const cases: [string, RegExp][] = [
        ['192.0.2.1', /IP address/],
        ['[2001:db8::1]', /not a domain name/],
        ['https://shop.example.com/', /not a domain name/],
        ['shop..example.com', /invalid label/],
        ['-shop.example.com', /invalid label/],
        [`${'a'.repeat(64)}.example.com`, /invalid label/],
        [`${'abcdefghi.'.repeat(26)}com`, /longer than 253/],
        ['localhost', /single label/],
        ['co.uk', /public suffix/],
        [`shop.${PLATFORM_DOMAIN}`, /platform's own domain/],
        [PLATFORM_DOMAIN, /platform's own domain/],
      ]
      for (const [name, message] of cases) {
        const response = await admin(t, 'POST', `/projects/${pro.slug}/domains`, { name })
        assert.equal(response.statusCode, 400, `${name}: ${response.body}`)
        assert.match(response.json<{ message: string }>().message, message, name)
      }
      const unicode = await addDomain(t, pro.slug, `Bücher.${uniqueDomain().apex}.`)
      assert.match(unicode.name, /^xn--bcher-kva\.customer-/)
      assert.match(unicode.unicodeName, /^bücher\./)
    })

    test('a name belongs to one project: taken by another is 409 domain_taken, without saying which', async () => {
      const t = await app()
      const [a, b] = [await t.project({ plan: 'pro' }), await t.project({ plan: 'pro' })]
      const { name } = uniqueDomain()
      await addDomain(t, a.slug, name)
      const again = await admin(t, 'POST', `/projects/${a.slug}/domains`, { name: name.toUpperCase() })
      assert.equal(again.statusCode, 409)
      assert.match(again.json<{ message: string }>().message, /already a domain of project/)
      const other = await admin(t, 'POST', `/projects/${b.slug}/domains`, { name })
      assert.equal(other.statusCode, 409)
      assert.equal(other.json<{ code: string }>().code, 'domain_taken')
      assert.doesNotMatch(other.json<{ message: string }>().message, new RegExp(a.slug))
      // And another project's domain is invisible to b.
      assert.equal((await admin(t, 'GET', `/projects/${b.slug}/domains/${name}`)).statusCode, 404)
      assert.equal((await admin(t, 'DELETE', `/projects/${b.slug}/domains/${name}`)).statusCode, 404)
    })

    test('an unknown project is 404', async () => {
      const t = await app()
      const response = await admin(t, 'POST', '/projects/nope/domains', { name: uniqueDomain().name })
      assert.equal(response.statusCode, 404)
    })
  })

  describe('verification by DNS (pebble-challtestsrv)', () => {
    test('a missing CNAME fails, named with the record to create; once set, verify succeeds', async () => {
      const t = await app()
      const pro = await t.project({ plan: 'pro' })
      const { name } = uniqueDomain()
      await addDomain(t, pro.slug, name)
      const failed = await verifyDomain(t, pro.slug, name)
      assert.equal(failed.status.state, 'failed')
      assert.equal(failed.status.reason, `No CNAME record for ${name}: create a CNAME record named shop with the value ${DNS_TARGET} (TTL 3600).`)
      assert.ok(failed.status.checkedAt)
      assert.ok(failed.status.nextCheckAt, 'failed checks are retried in the background')

      await suite.dns.setCname(name, DNS_TARGET)
      const verified = await verifyDomain(t, pro.slug, name)
      assert.equal(verified.status.state, 'verified')
      assert.equal(verified.status.reason, null)
      assert.equal(verified.status.nextCheckAt, null)
      assert.ok(verified.status.verifiedAt)
      assert.equal(verified.certificate.state, 'pending')
      assert.ok(verified.certificate.nextCheckAt, 'a certificate is requested next')
    })

    test('a conflicting A record is named as the cause', async () => {
      const t = await app()
      const pro = await t.project({ plan: 'pro' })
      const { name } = uniqueDomain('www')
      await addDomain(t, pro.slug, name)
      await suite.dns.addA(name, ['198.51.100.7'])
      const domain = await verifyDomain(t, pro.slug, name)
      assert.equal(domain.status.state, 'failed')
      assert.match(domain.status.reason ?? '', new RegExp(`A conflicting record for ${name.replace(/\./g, '\\.')} \\(A 198\\.51\\.100\\.7\\) blocks the CNAME`))
    })

    test('a CNAME pointing elsewhere is named', async () => {
      const t = await app()
      const pro = await t.project({ plan: 'pro' })
      const { name } = uniqueDomain()
      await addDomain(t, pro.slug, name)
      await suite.dns.setCname(name, 'elsewhere.example.net')
      const domain = await verifyDomain(t, pro.slug, name)
      assert.equal(domain.status.state, 'failed')
      assert.match(domain.status.reason ?? '', /points at elsewhere\.example\.net, not at edge\.platform\.test/)
    })

    test("an apex domain verifies when its A set equals the target's, and names an extra address otherwise", async () => {
      const t = await app()
      const pro = await t.project({ plan: 'pro' })
      const { apex } = uniqueDomain()
      await addDomain(t, pro.slug, apex)
      const none = await verifyDomain(t, pro.slug, apex)
      assert.equal(none.status.state, 'failed')
      assert.match(none.status.reason ?? '', /No ALIAS\/ANAME or A\/AAAA records/)

      await suite.dns.addA(apex, [TARGET_ADDRESS, '203.0.113.9'])
      const extra = await verifyDomain(t, pro.slug, apex)
      assert.equal(extra.status.state, 'failed')
      assert.match(extra.status.reason ?? '', /a conflicting record \(A 203\.0\.113\.9\)/)

      await suite.dns.clearA(apex)
      await suite.dns.addA(apex, [TARGET_ADDRESS])
      assert.equal((await verifyDomain(t, pro.slug, apex)).status.state, 'verified')
    })

    test('an apex compares AAAA too', async () => {
      const target = `edge6-${process.pid}.platform.test`
      await suite.dns.addA(target, ['192.0.2.80'])
      await suite.dns.addAaaa(target, ['2001:db8::80'])
      const t = await app({ platformDnsTarget: target })
      const pro = await t.project({ plan: 'pro' })
      const { apex } = uniqueDomain()
      await addDomain(t, pro.slug, apex)
      await suite.dns.addA(apex, ['192.0.2.80'])
      const missing = await verifyDomain(t, pro.slug, apex)
      assert.equal(missing.status.state, 'failed')
      assert.match(missing.status.reason ?? '', /missing AAAA 2001:db8::80/)
      await suite.dns.addAaaa(apex, ['2001:db8::80'])
      assert.equal((await verifyDomain(t, pro.slug, apex)).status.state, 'verified')
    })
  })

  describe('host routing', () => {
    test('the platform subdomain selects the project: its key works there, another project\'s key is 401', async () => {
      const t = await app()
      const [a, b] = [await t.project(), await t.project()]
      const host = `${a.slug}.${PLATFORM_DOMAIN}`
      const own = await t.request({ method: 'GET', url: '/v1/pets', headers: { host, ...bearer(a.key) } })
      assert.equal(own.statusCode, 200)
      const other = await t.request({ method: 'GET', url: '/v1/pets', headers: { host, ...bearer(b.key) } })
      assert.equal(other.statusCode, 401)
      assert.match(other.json<{ message: string }>().message, /not a key of the project served at/)
      assert.match(String(other.headers['www-authenticate']), /invalid_token/)
      assert.ok(other.headers['x-ratelimit-limit'], 'still rate limited (by address)')
      // With a port, upper case, or a trailing dot: the same host.
      const variant = await t.request({ method: 'GET', url: '/v1/pets', headers: { host: `${host.toUpperCase()}.:8443`, ...bearer(a.key) } })
      assert.equal(variant.statusCode, 200)
    })

    test('an unknown host is a JSON 404 unknown_host, on any path', async () => {
      const t = await app()
      const project = await t.project()
      for (const host of [`nobody.${PLATFORM_DOMAIN}`, 'unknown.example.org', `a.b.${PLATFORM_DOMAIN}`]) {
        for (const url of ['/v1/pets', '/healthz', '/nowhere']) {
          const response = await t.request({ method: 'GET', url, headers: { host, ...bearer(project.key) } })
          assert.equal(response.statusCode, 404, `${host}${url}`)
          assert.equal(response.json<{ code: string }>().code, 'unknown_host')
        }
      }
    })

    test("the API's own hosts keep working as before: the key decides the project", async () => {
      const t = await app()
      const project = await t.project()
      for (const host of ['localhost', 'localhost:8080', '127.0.0.1:8080', '[::1]:8080', '10.1.2.3', 'staging.localhost:8080']) {
        const response = await t.request({ method: 'GET', url: '/v1/pets', headers: { host, ...bearer(project.key) } })
        assert.equal(response.statusCode, 200, host)
      }
    })

    test('without PLATFORM_DOMAIN there is no host routing at all', async () => {
      const t = suite.track(await createTestApp())
      const project = await t.project()
      const response = await t.request({ method: 'GET', url: '/v1/pets', headers: { host: 'shop.example.org', ...bearer(project.key) } })
      assert.equal(response.statusCode, 200)
    })

    test('a verified custom domain serves its project; pending ones are not served', async () => {
      const t = await app()
      const { project, name } = await verifiedDomain(t, suite.dns)
      const other = await t.project({ plan: 'pro' })
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host: name, ...bearer(project.key) } })).statusCode, 200)
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host: name, ...bearer(other.key) } })).statusCode, 401)

      const pending = uniqueDomain().name
      await addDomain(t, other.slug, pending)
      const refused = await t.request({ method: 'GET', url: '/v1/pets', headers: { host: pending, ...bearer(other.key) } })
      assert.equal(refused.statusCode, 404)
      assert.match(refused.json<{ message: string }>().message, /not passed DNS verification/)
    })

    test('remove stops serving the domain on the next request', async () => {
      const t = await app()
      const { project, name } = await verifiedDomain(t, suite.dns)
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host: name, ...bearer(project.key) } })).statusCode, 200)
      const removed = await admin(t, 'DELETE', `/projects/${project.slug}/domains/${name}`)
      assert.equal(removed.statusCode, 204)
      const next = await t.request({ method: 'GET', url: '/v1/pets', headers: { host: name, ...bearer(project.key) } })
      assert.equal(next.statusCode, 404)
      assert.equal(next.json<{ code: string }>().code, 'unknown_host')
      assert.equal((await admin(t, 'GET', `/projects/${project.slug}/domains/${name}`)).statusCode, 404)
    })

    test("operator paths are not served on a project's host", async () => {
      const t = await app()
      const project = await t.project()
      const host = `${project.slug}.${PLATFORM_DOMAIN}`
      for (const url of ['/metrics', `/admin/v1/projects/${project.slug}/domains`]) {
        const response = await t.request({ method: 'GET', url, headers: { host, ...bearer(ADMIN_TOKEN) } })
        assert.equal(response.statusCode, 404, url)
      }
    })
  })

  describe('primary domain and redirects', () => {
    test('domains.primary and domains.redirects follow the spec shape; a redirect domain answers 301 to the same path and query', async () => {
      const t = await app()
      const { project, apex, www } = await verifiedApexAndWww(t, suite.dns)

      const primary = await admin(t, 'PUT', `/projects/${project.slug}/domains/primary`, { name: apex })
      assert.equal(primary.statusCode, 200)
      assert.equal(primary.json<DomainSettings>().primary, apex)

      const redirect = await admin(t, 'POST', `/projects/${project.slug}/domains/redirects`, { from: www, to: apex })
      assert.equal(redirect.statusCode, 200)
      const settings = await domainSettings(t, project.slug)
      assert.equal(settings.platformHost, `${project.slug}.${PLATFORM_DOMAIN}`)
      assert.equal(settings.primary, apex)
      assert.deepEqual(settings.redirects, [{ from: www, to: apex, status: 301 }])
      assert.deepEqual(settings.domains.find((d) => d.name === www)?.redirect, { to: apex, status: 301 })

      const moved = await t.request({ method: 'GET', url: '/v1/pets?limit=5&status=sold', headers: { host: www, ...bearer(project.key) } })
      assert.equal(moved.statusCode, 301)
      assert.equal(moved.headers.location, `http://${apex}/v1/pets?limit=5&status=sold`)
      const anyPath = await t.request({ method: 'GET', url: '/anything/else?x=1', headers: { host: www } })
      assert.equal(anyPath.statusCode, 301)
      assert.equal(anyPath.headers.location, `http://${apex}/anything/else?x=1`)
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host: apex, ...bearer(project.key) } })).statusCode, 200)

      const removed = await admin(t, 'DELETE', `/projects/${project.slug}/domains/redirects/${www}`)
      assert.equal(removed.statusCode, 200)
      assert.deepEqual(removed.json<DomainSettings>().redirects, [])
      assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host: www, ...bearer(project.key) } })).statusCode, 200)
    })

    test('redirect and primary rules: no self-redirect, no chains, the primary does not redirect, targets are the project\'s own', async () => {
      const t = await app()
      const project = await t.project({ plan: 'pro' })
      const apex = uniqueDomain().apex
      const [a, b, c] = [`a.${apex}`, `b.${apex}`, `c.${apex}`]
      for (const name of [a, b, c]) await addDomain(t, project.slug, name)
      const post = (from: string, to: string) => admin(t, 'POST', `/projects/${project.slug}/domains/redirects`, { from, to })
      assert.equal((await post(a, a)).statusCode, 409)
      assert.equal((await post(a, 'foreign.example.org')).statusCode, 404)
      assert.equal((await post(a, b)).statusCode, 200)
      assert.equal((await post(c, a)).statusCode, 409, 'no chains: a already redirects')
      assert.equal((await post(b, c)).statusCode, 409, 'no chains: a redirects into b')
      assert.equal((await admin(t, 'PUT', `/projects/${project.slug}/domains/primary`, { name: a })).statusCode, 409)
      assert.equal((await admin(t, 'PUT', `/projects/${project.slug}/domains/primary`, { name: c })).statusCode, 200)
      assert.equal((await post(c, b)).statusCode, 409, 'the primary does not redirect')
      assert.equal((await post(b, `${project.slug}.${PLATFORM_DOMAIN}`)).statusCode, 409, 'a redirects into b')
      const cleared = await admin(t, 'PUT', `/projects/${project.slug}/domains/primary`, { name: null })
      assert.equal(cleared.json<DomainSettings>().primary, null)
      // Removing a domain removes the redirects to it.
      assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/domains/${b}`)).statusCode, 204)
      assert.deepEqual((await domainSettings(t, project.slug)).redirects, [])
    })
  })

  describe('ACME HTTP-01 challenge answers', () => {
    test('a challenge is answered on its own host only, on every instance sharing the database', async () => {
      const t = await app()
      const { name } = await verifiedDomain(t, suite.dns)
      const other = await verifiedDomain(t, suite.dns, 'api')
      const row = await t.database.db.selectFrom('domains').select('id').where('name', '=', name).executeTakeFirstOrThrow()
      await insertChallenge(t.database.db, { token: 'tok_abc-123', domainId: row.id, host: name, keyAuthorization: 'tok_abc-123.thumbprint', at: new Date().toISOString() })
      const sibling = await t.sibling()
      try {
        for (const instance of [t, sibling]) {
          const answer = await instance.request({ method: 'GET', url: '/.well-known/acme-challenge/tok_abc-123', headers: { host: name } })
          assert.equal(answer.statusCode, 200)
          assert.equal(answer.body, 'tok_abc-123.thumbprint')
          assert.match(String(answer.headers['content-type']), /^text\/plain/)
        }
        const elsewhere = await t.request({ method: 'GET', url: '/.well-known/acme-challenge/tok_abc-123', headers: { host: other.name } })
        assert.equal(elsewhere.statusCode, 404)
        const unknown = await t.request({ method: 'GET', url: '/.well-known/acme-challenge/nope', headers: { host: name } })
        assert.equal(unknown.statusCode, 404)
      } finally {
        await sibling.app.close()
      }
    })
  })
})
