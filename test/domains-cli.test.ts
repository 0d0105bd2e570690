/**
 * `adoption-store domains …` as an operator runs it (`runCli`), against a running server on
 * the same data: what the CLI changes is routed by the server from its next request.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import type { Domain, DomainSettings } from '../src/domains/domains.schemas.js'
import { DNS_TARGET, PLATFORM_DOMAIN, sendTo, TARGET_ADDRESS } from './helpers/domains.js'
import { type ChallTestSrv, pebbleMissing, startChallTestSrv, stopAll } from './helpers/pebble.js'
import { cleanup, makeDataDir, runCli, startServer } from './helpers/process.js'

let dns: ChallTestSrv
let env: Record<string, string>

describe('adoption-store domains', { skip: pebbleMissing }, () => {
  before(async () => {
    dns = await startChallTestSrv()
    await dns.addA(DNS_TARGET, [TARGET_ADDRESS])
    env = { PLATFORM_DOMAIN, PLATFORM_DNS_TARGET: DNS_TARGET, DNS_RESOLVERS: dns.dnsServer }
  })
  afterEach(cleanup)
  after(stopAll)

  test('add (free refused, pro shows the CNAME), verify (fails naming the CNAME, then succeeds), list, primary, redirects, remove', async () => {
    const dataDir = makeDataDir()
    const cli = (...args: string[]) => runCli(args, { dataDir, env })
    const domain = `shop.cli-${process.pid}.test`
    assert.equal((await cli('projects', 'create', 'acme', '--plan', 'free')).code, 0)

    const refused = await cli('domains', 'add', domain, '--project', 'acme')
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /plan pro or above; project acme is on plan free/)

    assert.equal((await cli('projects', 'set-plan', 'acme', 'pro')).code, 0)
    const added = await cli('domains', 'add', domain, '--project', 'acme')
    assert.equal(added.code, 0, added.stderr)
    assert.match(added.stdout, /Added shop\.cli-\d+\.test to project acme \(pending DNS verification\)/)
    assert.match(added.stdout, /TYPE\s+NAME\s+VALUE\s+TTL\n\s+CNAME\s+shop\s+edge\.platform\.test\s+3600/)

    const failed = await cli('domains', 'verify', domain, '--project', 'acme')
    assert.equal(failed.code, 1)
    assert.match(failed.stderr, /does not verify: No CNAME record for shop\.cli-\d+\.test: create a CNAME record named shop with the value edge\.platform\.test/)

    await dns.setCname(domain, DNS_TARGET)
    const verified = await cli('domains', 'verify', domain, '--project', 'acme', '--json')
    assert.equal(verified.code, 0, verified.stderr)
    assert.equal(JSON.parse(verified.stdout).status.state, 'verified')

    const www = `www.cli-${process.pid}.test`
    assert.equal((await cli('domains', 'add', www, '--project', 'acme')).code, 0)
    assert.equal((await cli('domains', 'set-primary', domain, '--project', 'acme')).code, 0)
    const redirected = await cli('domains', 'add-redirect', www, domain, '--project', 'acme', '--json')
    assert.equal(redirected.code, 0, redirected.stderr)
    assert.deepEqual(JSON.parse(redirected.stdout).redirects, [{ from: www, to: domain, status: 301 }])

    const listed = await cli('domains', 'list', '--project', 'acme', '--json')
    const settings = JSON.parse(listed.stdout) as DomainSettings
    assert.equal(settings.primary, domain)
    assert.deepEqual(
      settings.domains.map((d: Domain) => [d.name, d.status.state]),
      [
        [domain, 'verified'],
        [www, 'pending'],
      ],
    )
    const human = await cli('domains', 'list', '--project', 'acme')
    assert.match(human.stdout, /primary domain: shop\./)
    assert.match(human.stdout, /shop\.cli-\d+\.test \(primary\)\s+verified/)
    assert.match(human.stdout, /www\.cli-\d+\.test\s+pending DNS/)

    assert.equal((await cli('domains', 'remove-redirect', www, '--project', 'acme')).code, 0)
    const removed = await cli('domains', 'remove', www, '--project', 'acme')
    assert.equal(removed.code, 0)
    assert.match(removed.stdout, /Removed www\./)
    assert.equal((await cli('domains', 'remove', www, '--project', 'acme')).code, 1)
  })

  test("a running server serves a domain the CLI verified and refuses it from the request after the CLI's remove", async () => {
    const server = await startServer({ env })
    const cli = (...args: string[]) => runCli(args, { dataDir: server.dataDir, env })
    const domain = `api.cli-live-${process.pid}.test`
    assert.equal((await cli('projects', 'create', 'live', '--plan', 'pro')).code, 0)
    const key = JSON.parse((await cli('keys', 'create', '--project', 'live', '--json')).stdout).key as string
    assert.equal((await cli('domains', 'add', domain, '--project', 'live')).code, 0)
    const get = () => sendTo(`${server.url}/v1/pets`, { host: domain, headers: { authorization: `Bearer ${key}` } })

    assert.equal((await get()).status, 404, 'not served before verification')
    await dns.setCname(domain, DNS_TARGET)
    assert.equal((await cli('domains', 'verify', domain, '--project', 'live')).code, 0)
    assert.equal((await get()).status, 200)
    assert.equal((await cli('domains', 'remove', domain, '--project', 'live')).code, 0)
    const refused = await get()
    assert.equal(refused.status, 404)
    assert.equal((JSON.parse(refused.body) as { code: string }).code, 'unknown_host')
  })
})
