/**
 * The background work of custom domains: DNS re-checks on their backoff schedule, and leases in
 * the database so that instances sharing it never do the same work twice. Runs on the suite's
 * dialect; the clock is the test's.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Domain } from '../src/domains/domains.schemas.js'
import { type CaaRecord, type DnsLookup, NodeDnsLookup } from '../src/domains/dns.js'
import { claimDomain } from '../src/domains/domains.repository.js'
import { GAVE_UP } from '../src/domains/domains.service.js'
import { NOT_CONFIGURED } from '../src/domains/certificates.service.js'
import { admin } from './helpers/admin.js'
import { ManualClock, type TestApp } from './helpers/app.js'
import { testDialect } from './helpers/databases.js'
import { addDomain, DNS_TARGET, DomainsSuite, uniqueDomain, verifyDomain } from './helpers/domains.js'
import { pebbleMissing } from './helpers/pebble.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

const suite = new DomainsSuite()
const app = (clock: ManualClock): Promise<TestApp> => suite.app({}, { clock })

/**
 * A DNS whose address answers (A and AAAA, the last a check of a name without a CNAME asks for),
 * while `holding`, are kept back until `release()`: a check that has all its answers, not yet saved.
 */
class HeldAnswers implements DnsLookup {
  holding = false
  private held = 0
  private onHeld: (() => void) | undefined
  release: () => void = () => undefined
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve))

  constructor(private readonly dns: DnsLookup) {}

  /** Resolves once `count` answers are held. */
  answered(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.onHeld = () => {
        if (this.held >= count) resolve()
      }
      this.onHeld()
    })
  }

  private async hold<T>(answer: Promise<T>): Promise<T> {
    const value = await answer
    if (this.holding) {
      this.held++
      this.onHeld?.()
      await this.gate
    }
    return value
  }
  cname(name: string): Promise<string[]> {
    return this.dns.cname(name)
  }
  a(name: string): Promise<string[]> {
    return this.hold(this.dns.a(name))
  }
  aaaa(name: string): Promise<string[]> {
    return this.hold(this.dns.aaaa(name))
  }
  caa(name: string): Promise<CaaRecord[]> {
    return this.dns.caa(name)
  }
}

async function get(t: TestApp, slug: string, name: string): Promise<Domain> {
  return (await admin(t, 'GET', `/projects/${slug}/domains/${name}`)).json<Domain>()
}

describe('custom domains in the background', { skip: pebbleMissing }, () => {
  suite.hooks()

  test('pending domains are re-checked every 10 minutes for a day, then hourly, then given up with a reason', async () => {
    const clock = new ManualClock()
    const t = await app(clock)
    const pro = await t.project({ plan: 'pro' })
    const { name } = uniqueDomain()
    const added = await addDomain(t, pro.slug, name)
    assert.equal(added.status.nextCheckAt, new Date(clock.now()).toISOString(), 'first checked as soon as the worker runs')

    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 1, certificates: 0 })
    let domain = await get(t, pro.slug, name)
    assert.equal(domain.status.state, 'failed')
    assert.match(domain.status.reason ?? '', /No CNAME record/)
    assert.equal(domain.status.checkedAt, new Date(clock.now()).toISOString())
    assert.equal(domain.status.nextCheckAt, new Date(clock.now() + 10 * MINUTE).toISOString())
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 0, certificates: 0 }, 'not due yet')

    clock.advance(23 * HOUR)
    await t.app.domains.worker.runOnce()
    domain = await get(t, pro.slug, name)
    assert.equal(domain.status.nextCheckAt, new Date(clock.now() + 10 * MINUTE).toISOString(), 'still every 10 minutes within the first day')

    clock.advance(2 * HOUR)
    await t.app.domains.worker.runOnce()
    domain = await get(t, pro.slug, name)
    assert.equal(domain.status.nextCheckAt, new Date(clock.now() + HOUR).toISOString(), 'hourly after the first day')

    clock.advance(48 * HOUR)
    await t.app.domains.worker.runOnce()
    domain = await get(t, pro.slug, name)
    assert.equal(domain.status.state, 'failed')
    assert.equal(domain.status.nextCheckAt, null)
    assert.ok(domain.status.reason?.endsWith(GAVE_UP), domain.status.reason ?? '')
    clock.advance(24 * HOUR)
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 0, certificates: 0 }, 'no more checks after giving up')

    // Re-verify starts a new schedule.
    await suite.dns.setCname(name, DNS_TARGET)
    assert.equal((await verifyDomain(t, pro.slug, name)).status.state, 'verified')
  })

  test('a background check verifies a domain once its CNAME appears; without a key no certificate is attempted, and the state says why', async () => {
    const clock = new ManualClock()
    const t = await app(clock)
    const pro = await t.project({ plan: 'pro' })
    const { name } = uniqueDomain()
    await addDomain(t, pro.slug, name)
    await t.app.domains.worker.runOnce()
    await suite.dns.setCname(name, DNS_TARGET)
    clock.advance(10 * MINUTE)
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 1, certificates: 1 })
    const domain = await get(t, pro.slug, name)
    assert.equal(domain.status.state, 'verified')
    assert.equal(domain.status.nextCheckAt, null)
    assert.equal(domain.certificate.state, 'pending')
    assert.equal(domain.certificate.reason, NOT_CONFIGURED)
    assert.equal(domain.certificate.nextCheckAt, null)
    // The checker's moves are in the audit log, as the system's; the admin's add is the admin's.
    const audit = await admin(t, 'GET', `/audit?project=${pro.slug}&targetType=domain&targetId=${name}`)
    assert.equal(audit.statusCode, 200, audit.body)
    const entries = audit.json<{ actor: { kind: string }; action: string; details: { from?: string; to?: string } }[]>()
    assert.deepEqual(entries.at(-1)!, { ...entries.at(-1)!, action: 'domain.added', actor: { kind: 'admin_token', name: 'ADMIN_TOKEN' } })
    const moves = entries.filter((entry) => entry.action === 'domain.state_changed')
    assert.ok(moves.length >= 1 && moves.every((entry) => entry.actor.kind === 'system'))
    assert.equal(moves[0]!.details.to, 'verified')
  })

  test('a Verify that answers while a background check is under way stands; the older answer is dropped and the certificate work follows', async () => {
    const dns = new HeldAnswers(new NodeDnsLookup([suite.dns.dnsServer]))
    const clock = new ManualClock()
    const t = await suite.app({}, { clock, domains: { dns } })
    const pro = await t.project({ plan: 'pro' })
    const { name } = uniqueDomain()
    await addDomain(t, pro.slug, name)

    // The background check asks before the CNAME exists (CNAME, then A and AAAA: none), and saves
    // only after the customer has set it and Verify has answered.
    dns.holding = true
    const pass = t.app.domains.worker.runOnce()
    await dns.answered(2)
    dns.holding = false
    await suite.dns.setCname(name, DNS_TARGET)
    assert.equal((await verifyDomain(t, pro.slug, name)).status.state, 'verified')
    dns.release()

    assert.deepEqual(await pass, { dns: 1, certificates: 1 }, 'the lease was given back: the certificate work followed in the same pass')
    const domain = await get(t, pro.slug, name)
    assert.equal(domain.status.state, 'verified')
    assert.equal(domain.certificate.reason, NOT_CONFIGURED)
  })

  test('instances sharing the database never check the same domain twice; a lease left by a crashed instance is taken over', async () => {
    const clock = new ManualClock()
    const t = await app(clock)
    const sibling = await t.sibling()
    await sibling.app.domains.worker.stop()
    try {
      const pro = await t.project({ plan: 'pro' })
      const names = Array.from({ length: 8 }, () => uniqueDomain().name)
      for (const name of names) await addDomain(t, pro.slug, name)

      // On PostgreSQL the two passes race. Two SQLite connections in one process cannot: a write
      // waiting for the other's lock blocks the event loop the other needs to commit (separate
      // processes, as in production, just wait), so there they run one after the other.
      const [a, b] =
        testDialect === 'postgres'
          ? await Promise.all([t.app.domains.worker.runOnce(), sibling.app.domains.worker.runOnce()])
          : [await t.app.domains.worker.runOnce(), await sibling.app.domains.worker.runOnce()]
      assert.equal(a.dns + b.dns, names.length, `each domain checked once: ${JSON.stringify({ a, b })}`)
      const rows = await t.database.db.selectFrom('domains').select(['name', 'checks', 'lease_holder']).execute()
      assert.deepEqual(
        rows.map((row) => [row.checks, row.lease_holder]),
        names.map(() => [1, null]),
      )

      // A crashed instance's lease: nobody works on the row until it expires, then someone does.
      clock.advance(10 * MINUTE)
      const [crashed] = names
      const id = (await t.database.db.selectFrom('domains').select('id').where('name', '=', crashed!).executeTakeFirstOrThrow()).id
      const now = clock.now()
      assert.equal(await claimDomain(t.database.db, id, 'dns', 'crashed-instance', new Date(now).toISOString(), new Date(now + 2 * MINUTE).toISOString()), true)
      assert.equal(await claimDomain(t.database.db, id, 'dns', 'another', new Date(now).toISOString(), new Date(now + 2 * MINUTE).toISOString()), false)
      const held = await t.app.domains.worker.runOnce()
      assert.equal(held.dns, names.length - 1)
      clock.advance(3 * MINUTE)
      assert.equal((await sibling.app.domains.worker.runOnce()).dns, 1)
      const taken = await t.database.db.selectFrom('domains').select(['checks', 'lease_holder']).where('id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual(taken, { checks: 2, lease_holder: null })
    } finally {
      await sibling.app.close()
    }
  })
})
