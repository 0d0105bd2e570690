import assert from 'node:assert/strict'
import http from 'node:http'
import https from 'node:https'
import { after, afterEach, before } from 'node:test'
import type { Config } from '../../src/config.js'
import type { Domain, DomainSettings } from '../../src/domains/domains.schemas.js'
import { ADMIN_TOKEN, admin } from './admin.js'
import { createTestApp, type TestApp } from './app.js'
import { type ChallTestSrv, startChallTestSrv, stopAll } from './pebble.js'

export const PLATFORM_DOMAIN = 'platform.test'
export const DNS_TARGET = 'edge.platform.test'
/** What the platform's target resolves to in the test DNS: loopback, where the service listens. */
export const TARGET_ADDRESS = '127.0.0.1'

let counter = 0
/** A domain name no other test uses, under a registrable domain of its own. */
export function uniqueDomain(label = 'shop'): { name: string; apex: string } {
  const apex = `customer-${process.pid}-${++counter}.test`
  return { name: `${label}.${apex}`, apex }
}

/** The configuration of an app with custom domains, asking `dns` (challtestsrv) and nothing else. */
export function domainsConfig(dns: ChallTestSrv, extra: Partial<Config> = {}): Partial<Config> {
  return {
    platformDomain: PLATFORM_DOMAIN,
    platformDnsTarget: DNS_TARGET,
    dnsResolvers: [dns.dnsServer],
    adminToken: ADMIN_TOKEN,
    // Background passes run when a test asks (worker.runOnce), not on a timer of their own.
    domainWorkerIntervalMs: 3_600_000,
    ...extra,
  }
}

/**
 * An app with custom domains. Its background worker is stopped unless `background` is set: tests
 * then run passes themselves (`app.domains.worker.runOnce()`), so nothing changes behind their back.
 */
export async function createDomainsApp(
  dns: ChallTestSrv,
  extra: Partial<Config> = {},
  options: Parameters<typeof createTestApp>[0] & { background?: boolean } = {},
): Promise<TestApp> {
  await dns.addA(DNS_TARGET, [TARGET_ADDRESS])
  const t = await createTestApp({ ...options, config: { ...domainsConfig(dns, extra), ...options.config } })
  if (!options.background) await t.app.domains.worker.stop()
  return t
}

export async function addDomain(t: TestApp, slug: string, name: string): Promise<Domain> {
  const response = await admin(t, 'POST', `/projects/${slug}/domains`, { name })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Domain>()
}

export async function verifyDomain(t: TestApp, slug: string, name: string): Promise<Domain> {
  const response = await admin(t, 'POST', `/projects/${slug}/domains/${name}/verify`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<Domain>()
}

export async function domainSettings(t: TestApp, slug: string): Promise<DomainSettings> {
  const response = await admin(t, 'GET', `/projects/${slug}/domains`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<DomainSettings>()
}

/** A pro project with a custom domain that points at the platform and is verified. */
export async function verifiedDomain(t: TestApp, dns: ChallTestSrv, label = 'shop') {
  const project = await t.project({ plan: 'pro' })
  const { name } = uniqueDomain(label)
  await addDomain(t, project.slug, name)
  await dns.setCname(name, DNS_TARGET)
  const domain = await verifyDomain(t, project.slug, name)
  assert.equal(domain.status.state, 'verified', domain.status.reason ?? '')
  return { project, name }
}

/** A pro project whose apex (an A record to the target address) and www (a CNAME to the target) are both verified. */
export async function verifiedApexAndWww(t: TestApp, dns: ChallTestSrv) {
  const project = await t.project({ plan: 'pro' })
  const apex = uniqueDomain().apex
  const www = `www.${apex}`
  for (const name of [apex, www]) await addDomain(t, project.slug, name)
  await dns.addA(apex, [TARGET_ADDRESS])
  await dns.setCname(www, DNS_TARGET)
  for (const name of [apex, www]) assert.equal((await verifyDomain(t, project.slug, name)).status.state, 'verified')
  return { project, apex, www }
}

/** The set-up that suites of custom-domain tests share: the test DNS, and the apps to close after each test. */
export class DomainsSuite {
  #dns: ChallTestSrv | undefined
  readonly #apps: TestApp[] = []

  /**
   * Registers the hooks in the current `describe`: the test DNS (challtestsrv) started before its
   * tests, the apps closed after each test, and every Pebble process stopped after them all.
   */
  hooks(): void {
    before(async () => {
      this.#dns = await startChallTestSrv()
    })
    afterEach(async () => {
      await Promise.all(this.#apps.splice(0).map((t) => t.close()))
    })
    after(stopAll)
  }

  get dns(): ChallTestSrv {
    assert.ok(this.#dns, 'the test DNS starts before the tests (DomainsSuite.hooks)')
    return this.#dns
  }

  /** An app with custom domains (`createDomainsApp` on the suite's DNS), closed after the test. */
  async app(extra: Partial<Config> = {}, options: Parameters<typeof createDomainsApp>[2] = {}): Promise<TestApp> {
    return this.track(await createDomainsApp(this.dns, extra, options))
  }

  /** Closes `t` after the test. */
  track(t: TestApp): TestApp {
    this.#apps.push(t)
    return t
  }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * One request over a new connection to a listening server, with the Host header (and for HTTPS
 * the SNI name) a browser would send for `host`. fetch cannot: it always sends the URL's host.
 */
export function sendTo(
  url: string,
  options: { host: string; method?: string; headers?: Record<string, string>; body?: string; ca?: string; timeoutMs?: number },
): Promise<RawResponse> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? https.request : http.request
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: { ...options.headers, host: options.host },
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
        ...(target.protocol === 'https:' && { servername: options.host, ca: options.ca }),
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      },
    )
    request.on('timeout', () => request.destroy(new Error(`${url} (${options.host}) timed out`)))
    request.on('error', reject)
    request.end(options.body)
  })
}
