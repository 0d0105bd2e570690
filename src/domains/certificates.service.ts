import { recordChange, SYSTEM_CHANGE } from '../audit/audit.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { DomainRow } from '../db/schema.js'
import type { CertificateAuthority } from './acme.js'
import { checkCaa, type DnsLookup } from './dns.js'
import { bumpGeneration, deleteChallenge, findCertificate, findChallenge, insertChallenge, releaseDomain, saveCertificate, updateDomain } from './domains.repository.js'
import { nextCertificateAttempt, type ChangeListener } from './domains.service.js'
import type { SecretBox } from '../secret-box.js'
import type { Outbox } from '../webhooks/outbox.js'

export const NOT_CONFIGURED = 'Certificates are not issued by this service: set CERTIFICATE_ENCRYPTION_KEY (and HTTPS_PORT) to enable them.'

/** The context a certificate's private key is sealed under: it only decrypts for its own domain. */
export function certificateContext(domainId: number, name: string): string {
  return `certificate:${domainId}:${name}`
}

const iso = (ms: number) => new Date(ms).toISOString()
const MIN_RENEWAL_DELAY_MS = 60 * 60_000

/** Renewal is due two thirds into a certificate's lifetime (day 60 of Let's Encrypt's 90). */
export function renewalTime(notBefore: Date, notAfter: Date): number {
  return notBefore.getTime() + ((notAfter.getTime() - notBefore.getTime()) * 2) / 3
}

/**
 * Obtains and renews the certificate of a verified domain: CAA first (a blocking record is named),
 * then an ACME order whose HTTP-01 challenge every instance answers from the database. The key is
 * stored encrypted. Failures are kept as the certificate's state with their reason and retried
 * with backoff; a certificate still valid keeps being served while its renewal fails.
 */
export class CertificatesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dns: DnsLookup,
    private readonly authority: CertificateAuthority | undefined,
    private readonly box: SecretBox | undefined,
    private readonly caaDomains: readonly string[],
    private readonly onChange: ChangeListener,
    private readonly outbox: Outbox,
  ) {}

  /** Works on a domain whose lease `holder` has; answers the row after, or nothing if the lease was lost. */
  async process(row: DomainRow, holder: string): Promise<DomainRow | undefined> {
    const started = this.clock.now()
    if (!this.authority || !this.box) {
      return this.finish(row.id, holder, { cert_state: 'pending', cert_reason: NOT_CONFIGURED, cert_next_at: null, cert_checked_at: iso(started) })
    }
    const existing = await findCertificate(this.db, row.id)
    const renewing = existing !== undefined && Date.parse(existing.not_after) > started
    await updateDomain(this.db, row.id, { cert_state: renewing ? 'renewing' : 'issuing', cert_checked_at: iso(started) })

    const failed = async (reason: string) => {
      const attempts = row.cert_attempts + 1
      const changes = {
        cert_state: 'failed' as const,
        cert_reason: renewing ? `Renewal failed (the current certificate is served until ${existing?.not_after}): ${reason}` : reason,
        cert_attempts: attempts,
        cert_next_at: iso(nextCertificateAttempt(attempts, this.clock.now())),
      }
      // certificate.failing when it starts failing, not at each retry.
      return this.db.transaction().execute(async (trx) => {
        const after = await releaseDomain(trx, row.id, holder, changes)
        if (after && row.cert_state !== 'failed') {
          await this.recordSystem(trx, row, 'failed', { reason: changes.cert_reason, attempts })
          await this.outbox.write(trx, row.project_id, 'certificate.failing', {
            domain: row.name,
            reason: changes.cert_reason,
            attempts,
            nextAttemptAt: changes.cert_next_at,
            servedUntil: renewing ? (existing?.not_after ?? null) : null,
          })
        }
        return after
      })
    }

    const caa = await checkCaa(this.dns, row.name, this.caaDomains)
    if (!caa.ok) return failed(caa.reason)

    let issued
    try {
      const at = iso(this.clock.now())
      issued = await this.authority.issue(row.name, {
        publish: (token, keyAuthorization) => insertChallenge(this.db, { token, domainId: row.id, host: row.name, keyAuthorization, at }),
        withdraw: (token) => deleteChallenge(this.db, token),
      })
    } catch (error) {
      return failed(`The certificate authority refused or failed: ${(error as Error).message}`)
    }
    if (issued.certificatePem.length === 0) return failed('The certificate authority returned no certificate.')
    // Never sooner than an hour from now, even for a certificate the CA dated oddly: no renewal loop.
    const renewAt = Math.max(renewalTime(issued.notBefore, issued.notAfter), this.clock.now() + MIN_RENEWAL_DELAY_MS)
    const box = this.box
    const generation = await this.db.transaction().execute(async (trx) => {
      await saveCertificate(trx, {
        domain_id: row.id,
        certificate_pem: issued.certificatePem,
        private_key: box.seal(issued.privateKeyPem, certificateContext(row.id, row.name)),
        not_before: issued.notBefore.toISOString(),
        not_after: issued.notAfter.toISOString(),
        renew_at: iso(renewAt),
        issued_at: iso(this.clock.now()),
      })
      await this.outbox.write(trx, row.project_id, 'certificate.issued', {
        domain: row.name,
        notBefore: issued.notBefore.toISOString(),
        notAfter: issued.notAfter.toISOString(),
        renewAt: iso(renewAt),
        renewal: renewing,
      })
      await this.recordSystem(trx, row, 'issued', { notAfter: issued.notAfter.toISOString(), renewal: renewing })
      return bumpGeneration(trx)
    })
    const after = await this.finish(row.id, holder, { cert_state: 'issued', cert_reason: null, cert_attempts: 0, cert_next_at: iso(renewAt) })
    await this.onChange(generation)
    return after
  }

  /** The answer to an HTTP-01 challenge, only on the host it was issued for; undefined otherwise. */
  async challengeAnswer(token: string, host: string): Promise<string | undefined> {
    return findChallenge(this.db, token, host)
  }

  /** The background checker's change of a certificate, in the audit log (the system's), in its transaction. */
  private async recordSystem(trx: Db, row: DomainRow, to: 'issued' | 'failed', details: Record<string, unknown>): Promise<void> {
    await recordChange(trx, this.clock, SYSTEM_CHANGE, { action: 'domain.certificate_changed', target: { type: 'domain', id: row.name }, projectId: row.project_id, details: { from: row.cert_state, to, ...details } })
  }

  private finish(id: number, holder: string, changes: Parameters<typeof releaseDomain>[3]) {
    return releaseDomain(this.db, id, holder, changes)
  }
}
