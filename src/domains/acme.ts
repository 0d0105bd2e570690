import fs from 'node:fs'
import type Https from 'node:https'
import type Tls from 'node:tls'
import type * as Acme from 'acme-client'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { findAcmeAccount, insertAcmeAccount, setAcmeAccountUrl } from './domains.repository.js'
import type { SecretBox } from '../secret-box.js'
import { lazy } from '../lazy.js'

const acmeClient = lazy<typeof Acme>('acme-client')
const https = lazy<typeof Https>('node:https')
const tls = lazy<typeof Tls>('node:tls')

/** Where HTTP-01 answers are published while an order runs: every instance answers them. */
export interface ChallengeBoard {
  publish(token: string, keyAuthorization: string): Promise<void>
  withdraw(token: string): Promise<void>
}

export interface IssuedCertificate {
  /** The leaf and its chain, PEM. */
  certificatePem: string
  privateKeyPem: string
  notBefore: Date
  notAfter: Date
}

/** A certificate authority: the one interface in front of ACME (Let's Encrypt, Pebble in tests). */
export interface CertificateAuthority {
  /** Orders a certificate for one name, proving control through HTTP-01. Throws with the CA's reason. */
  issue(name: string, challenges: ChallengeBoard): Promise<IssuedCertificate>
}

export interface AcmeSettings {
  acmeDirectoryUrl: string
  acmeEmail: string | undefined
  acmeCaFile: string | undefined
}

/** Longest wait for one HTTP exchange with the CA. */
const ACME_TIMEOUT_MS = 30_000

/**
 * ACME (RFC 8555) with acme-client. Only the CA's directory is ever contacted: the service never
 * fetches its own challenge URL on the customer's host (acme-client's optional self-check is not
 * used), so customer-controlled hosts get no connection from it. The account key is created once
 * per directory and kept in the database, encrypted.
 */
export class AcmeAuthority implements CertificateAuthority {
  private client: Acme.Client | undefined
  /**
   * The configured CA file's agent (a private CA's directory), read at construction: a file that
   * cannot be read fails the start. Its TLS context is made once: given only the certificates,
   * the agent would parse them all (the system's roots and the file's) for every connection.
   */
  private readonly agent: Https.Agent | undefined
  private configured = false

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly settings: AcmeSettings,
  ) {
    this.agent = settings.acmeCaFile
      ? new (https().Agent)({ secureContext: tls().createSecureContext({ ca: [...tls().rootCertificates, fs.readFileSync(settings.acmeCaFile, 'utf8')] }) })
      : undefined
  }

  /**
   * acme-client, loaded on first use (a process that orders no certificate, a command, never loads
   * it). It has one HTTP client for the process: bound its waits, leave retries to the service's
   * own backoff, and trust the configured CA file.
   */
  private acme(): typeof Acme {
    const acme = acmeClient()
    if (!this.configured) {
      this.configured = true
      acme.axios.defaults.timeout = ACME_TIMEOUT_MS
      ;(acme.axios.defaults as { acmeSettings?: { retryMaxAttempts: number } }).acmeSettings!.retryMaxAttempts = 1
      if (this.agent) acme.axios.defaults.httpsAgent = this.agent
    }
    return acme
  }

  async issue(name: string, challenges: ChallengeBoard): Promise<IssuedCertificate> {
    const client = await this.account()
    const order = await client.createOrder({ identifiers: [{ type: 'dns', value: name }] })
    const [authorization] = await client.getAuthorizations(order)
    if (!authorization) throw new Error(`The certificate authority asked for no authorization of ${name}`)
    if (authorization.status !== 'valid') {
      const challenge = authorization.challenges.find((candidate) => candidate.type === 'http-01')
      if (!challenge) throw new Error(`The certificate authority offers no HTTP-01 challenge for ${name}`)
      const keyAuthorization = await client.getChallengeKeyAuthorization(challenge)
      await challenges.publish(challenge.token, keyAuthorization)
      try {
        await client.completeChallenge(challenge)
        await client.waitForValidStatus(challenge)
      } catch (error) {
        await client.deactivateAuthorization(authorization).catch(() => undefined)
        throw new Error(`HTTP-01 validation of ${name} failed: ${(error as Error).message}`)
      } finally {
        await challenges.withdraw(challenge.token).catch(() => undefined)
      }
    }
    const privateKey = await this.acme().crypto.createPrivateEcdsaKey('P-256')
    const [, csr] = await this.acme().crypto.createCsr({ commonName: name, altNames: [name] }, privateKey)
    const finalized = await client.finalizeOrder(order, csr)
    const certificatePem = await client.getCertificate(finalized)
    const info = this.acme().crypto.readCertificateInfo(certificatePem)
    return { certificatePem, privateKeyPem: privateKey.toString(), notBefore: info.notBefore, notAfter: info.notAfter }
  }

  /** The ACME client of this directory's account, created and registered on first use. */
  private async account(): Promise<Acme.Client> {
    if (this.client) return this.client
    const directoryUrl = this.settings.acmeDirectoryUrl
    const context = `acme-account:${directoryUrl}`
    let row = await findAcmeAccount(this.db, directoryUrl)
    if (!row) {
      const key = await this.acme().crypto.createPrivateEcdsaKey('P-256')
      // Of instances racing to create it, the first insert wins and everyone uses that key.
      await insertAcmeAccount(this.db, { directoryUrl, privateKey: this.box.seal(key.toString(), context), at: new Date(this.clock.now()).toISOString() })
      row = await findAcmeAccount(this.db, directoryUrl)
      if (!row) throw new Error('The ACME account could not be stored')
    }
    const accountKey = this.box.open(row.private_key, context)
    const client = new (this.acme().Client)({ directoryUrl, accountKey, ...(row.account_url && { accountUrl: row.account_url }), backoffAttempts: 12, backoffMin: 1_000, backoffMax: 10_000 })
    if (!row.account_url) {
      await client.createAccount({ termsOfServiceAgreed: true, ...(this.settings.acmeEmail && { contact: [`mailto:${this.settings.acmeEmail}`] }) })
      await setAcmeAccountUrl(this.db, directoryUrl, client.getAccountUrl())
    }
    this.client = client
    return client
  }
}
