import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { BackgroundPass, leaseHolder } from '../jobs/background-pass.js'
import type { CertificatesService } from './certificates.service.js'
import { claimDomain, findDueDomains, releaseDomain, type WorkKind } from './domains.repository.js'
import type { DomainsService } from './domains.service.js'

/** How long a claimed DNS check may take before another instance may take it over. */
const DNS_LEASE_MS = 2 * 60_000
/** How long a claimed certificate order may take (an ACME order polls for a while). */
const CERTIFICATE_LEASE_MS = 10 * 60_000
const BATCH = 20

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The background work of custom domains, on every instance: re-checks pending and failed domains
 * on their backoff schedule, and obtains, retries and renews certificates. Each row is worked on
 * under a lease taken with one conditional update, so instances sharing a database never do the
 * same work twice; a lease left by a crashed instance expires and is taken over.
 */
export class DomainWorker {
  readonly holder = leaseHolder()
  private readonly passes: BackgroundPass

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly domains: DomainsService,
    private readonly certificates: CertificatesService,
    private readonly failures: FailureLog,
    intervalMs: number,
  ) {
    this.passes = new BackgroundPass(() => this.runOnce(), intervalMs, (err) => this.failures.failed(err, 'domains: background pass failed'))
  }

  start(): void {
    this.passes.start()
  }

  /** Runs a pass soon (e.g. right after a domain was verified), or again after the current one. */
  kick(): void {
    this.passes.kick()
  }

  /** Stops scheduling and waits for the pass in flight, at most `graceMs`; its leases expire if cut short. */
  async stop(graceMs = 5_000): Promise<void> {
    await this.passes.stop(graceMs)
  }

  /** One pass over the due work; answers how many rows it worked on. */
  async runOnce(): Promise<{ dns: number; certificates: number }> {
    let dns = 0
    let certificates = 0
    for (const row of await findDueDomains(this.db, 'dns', iso(this.clock.now()), BATCH)) {
      if (!(await this.claim(row.id, 'dns', DNS_LEASE_MS))) continue
      dns++
      await this.guard(row.id, () => this.domains.recheck(row, this.holder))
    }
    for (const row of await findDueDomains(this.db, 'certificate', iso(this.clock.now()), BATCH)) {
      if (!(await this.claim(row.id, 'certificate', CERTIFICATE_LEASE_MS))) continue
      certificates++
      await this.guard(row.id, () => this.certificates.process(row, this.holder))
    }
    return { dns, certificates }
  }

  private claim(id: number, kind: WorkKind, leaseMs: number): Promise<boolean> {
    const now = this.clock.now()
    return claimDomain(this.db, id, kind, this.holder, iso(now), iso(now + leaseMs))
  }

  /** An unexpected failure is logged and the lease given back, so the row is tried again. */
  private async guard(id: number, work: () => Promise<unknown>): Promise<void> {
    try {
      await work()
    } catch (err) {
      this.failures.failed(err, 'domains: background work on a domain failed', { domainId: id })
      await releaseDomain(this.db, id, this.holder, {}).catch(() => undefined)
    }
  }
}
