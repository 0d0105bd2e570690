import type Dns from 'node:dns/promises'
import { lazy } from '../lazy.js'
import { recordToCreate } from './domain-name.js'

const nodeDns = lazy<typeof Dns>('node:dns/promises')

/** One CAA record, as `node:dns` reads it: the tag is the property name (`issue`, `iodef`, …). */
export type CaaRecord = { critical: number } & Partial<Record<string, string | number>>

/**
 * The DNS questions domain checks ask. Each answers the records of one type at one name, or an
 * empty list when the name has none (NODATA, NXDOMAIN); any other failure throws a DnsFailure.
 */
export interface DnsLookup {
  cname(name: string): Promise<string[]>
  a(name: string): Promise<string[]>
  aaaa(name: string): Promise<string[]>
  caa(name: string): Promise<CaaRecord[]>
}

export class DnsFailure extends Error {
  constructor(
    readonly host: string,
    readonly type: string,
    readonly code: string,
  ) {
    super(`The DNS lookup of ${type} records for ${host} failed (${code})`)
  }
}

/** Answers that mean "no such records", not "the lookup failed". */
const EMPTY = new Set(['ENODATA', 'ENOTFOUND'])

/**
 * Real DNS queries through `node:dns`'s Resolver, to the configured servers only (DNS_RESOLVERS),
 * or to the system's when none is configured. Never the operating system's getaddrinfo.
 */
export class NodeDnsLookup implements DnsLookup {
  private readonly resolver: Dns.Resolver

  constructor(servers: readonly string[], options: { timeoutMs?: number; tries?: number } = {}) {
    this.resolver = new (nodeDns().Resolver)({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 })
    if (servers.length > 0) this.resolver.setServers([...servers])
  }

  cname(name: string): Promise<string[]> {
    return this.ask(name, 'CNAME', () => this.resolver.resolveCname(name))
  }
  a(name: string): Promise<string[]> {
    return this.ask(name, 'A', () => this.resolver.resolve4(name))
  }
  aaaa(name: string): Promise<string[]> {
    return this.ask(name, 'AAAA', () => this.resolver.resolve6(name))
  }
  caa(name: string): Promise<CaaRecord[]> {
    return this.ask(name, 'CAA', () => this.resolver.resolveCaa(name) as Promise<CaaRecord[]>)
  }

  private async ask<T>(name: string, type: string, query: () => Promise<T[]>): Promise<T[]> {
    try {
      return await query()
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error'
      if (EMPTY.has(code)) return []
      throw new DnsFailure(name, type, code)
    }
  }
}

/** `resolversDown`: the failure is the service's own DNS resolvers not answering, not the domain's records. */
export type CheckResult = { ok: true } | { ok: false; reason: string; resolversDown?: true }

function sameName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '')
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a)
  const right = new Set(b)
  return left.size === right.size && [...left].every((item) => right.has(item))
}

function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : 'none'
}

/**
 * Whether a domain points at the platform: a subdomain by a CNAME whose value is the target; an
 * apex by A and AAAA sets equal to the target's (what an ALIAS/ANAME record produces). A failure
 * says what was found and what to do; a conflicting A/AAAA record is named as the cause.
 */
export async function checkDomainDns(dns: DnsLookup, domain: { name: string; apex: boolean }, target: string): Promise<CheckResult> {
  try {
    const record = recordToCreate(domain, target)
    const cnames = await dns.cname(domain.name)
    if (cnames.some((value) => sameName(value, target))) return { ok: true }
    if (cnames.length > 0) {
      return { ok: false, reason: `The CNAME record of ${domain.name} points at ${cnames.join(', ')}, not at ${target}: change its value to ${target}.` }
    }
    const [a, aaaa] = await Promise.all([dns.a(domain.name), dns.aaaa(domain.name)])
    if (!domain.apex) {
      if (a.length > 0 || aaaa.length > 0) {
        const found = [...a.map((ip) => `A ${ip}`), ...aaaa.map((ip) => `AAAA ${ip}`)].join(', ')
        return {
          ok: false,
          reason: `A conflicting record for ${domain.name} (${found}) blocks the CNAME: delete it, then create a CNAME record named ${record.name} with the value ${target}.`,
        }
      }
      return { ok: false, reason: `No CNAME record for ${domain.name}: create a CNAME record named ${record.name} with the value ${target} (TTL ${record.ttl}).` }
    }
    const [targetA, targetAaaa] = await Promise.all([dns.a(target), dns.aaaa(target)])
    if (targetA.length === 0 && targetAaaa.length === 0) {
      return { ok: false, reason: `The platform's DNS target ${target} has no A or AAAA records, so apex domains cannot be compared with it: the operator must fix it.` }
    }
    if (sameSet(a, targetA) && sameSet(aaaa, targetAaaa)) return { ok: true }
    if (a.length === 0 && aaaa.length === 0) {
      return {
        ok: false,
        reason: `No ALIAS/ANAME or A/AAAA records for ${domain.name}: create an ALIAS or ANAME record at @ with the value ${target} (not every DNS provider supports them), or A/AAAA records with its addresses (A ${list(targetA)}; AAAA ${list(targetAaaa)}).`,
      }
    }
    const extra = [...a.filter((ip) => !targetA.includes(ip)).map((ip) => `A ${ip}`), ...aaaa.filter((ip) => !targetAaaa.includes(ip)).map((ip) => `AAAA ${ip}`)]
    const missing = [...targetA.filter((ip) => !a.includes(ip)).map((ip) => `A ${ip}`), ...targetAaaa.filter((ip) => !aaaa.includes(ip)).map((ip) => `AAAA ${ip}`)]
    const cause = extra.length ? `a conflicting record (${extra.join(', ')}) that ${target} does not have` : `missing ${missing.join(', ')}`
    return {
      ok: false,
      reason: `The addresses of ${domain.name} (A ${list(a)}; AAAA ${list(aaaa)}) differ from those of ${target} (A ${list(targetA)}; AAAA ${list(targetAaaa)}): ${cause}. Use an ALIAS/ANAME record to ${target}, or exactly its addresses.`,
    }
  } catch (error) {
    if (!(error instanceof DnsFailure)) throw error
    // A lookup that fails (SERVFAIL, a timeout, a refused query) is the domain's DNS failing only
    // if the resolvers answer for the platform's own target: otherwise they are what is down.
    if (await answers(dns, target)) return { ok: false, reason: `${error.message}; the check is retried.` }
    return { ok: false, resolversDown: true, reason: `${error.message}, and so does the lookup of ${target}: the service's DNS resolvers do not answer; the check is retried.` }
  }
}

async function answers(dns: DnsLookup, name: string): Promise<boolean> {
  try {
    await dns.a(name)
    return true
  } catch (error) {
    if (error instanceof DnsFailure) return false
    throw error
  }
}

const KNOWN_CAA_TAGS = new Set(['critical', 'issue', 'issuewild', 'iodef', 'contactemail', 'contactphone', 'issuemail', 'issuevmc'])
const CRITICAL_FLAG = 128

/**
 * The CAA check of RFC 8659: the relevant record set is the first non-empty one found climbing
 * from the name towards the root. Issuance is allowed when it has no `issue` property, or one
 * whose issuer domain is the certificate authority's, and no unknown critical property. A
 * blocking record is named, with where it was found.
 */
export async function checkCaa(dns: DnsLookup, name: string, issuerDomains: readonly string[]): Promise<CheckResult> {
  const labels = name.split('.')
  for (let i = 0; i < labels.length; i++) {
    const at = labels.slice(i).join('.')
    let records: CaaRecord[]
    try {
      records = await dns.caa(at)
    } catch (error) {
      if (error instanceof DnsFailure) {
        return { ok: false, reason: `${error.message}: a certificate is only requested once the CAA records can be read (RFC 8659); the check is retried.` }
      }
      throw error
    }
    if (records.length === 0) continue
    const describe = (record: CaaRecord) => {
      const tag = Object.keys(record).find((key) => key !== 'critical') ?? 'unknown'
      return `${at} CAA ${record.critical} ${tag} "${String(record[tag] ?? '')}"`
    }
    const unknownCritical = records.find((record) => record.critical & CRITICAL_FLAG && Object.keys(record).some((key) => !KNOWN_CAA_TAGS.has(key)))
    if (unknownCritical) {
      return { ok: false, reason: `The CAA record ${describe(unknownCritical)} has a critical property this service does not know, which forbids issuance (RFC 8659).` }
    }
    const issue = records.filter((record) => typeof record.issue === 'string')
    if (issue.length === 0) return { ok: true }
    const allowed = issue.some((record) => issuerDomains.includes(String(record.issue).split(';')[0]!.trim().toLowerCase()))
    if (allowed) return { ok: true }
    return {
      ok: false,
      reason: `The CAA record ${issue.map(describe).join(', ')} does not allow the certificate authority (${issuerDomains.join(', ')}) to issue for ${name}: add a CAA record ${at} CAA 0 issue "${issuerDomains[0] ?? ''}", or remove the blocking one.`,
    }
  }
  return { ok: true }
}
