import net from 'node:net'
import { domainToASCII, domainToUnicode } from 'node:url'
import type * as Tldts from 'tldts'
import { lazy } from '../lazy.js'
import type { DNS_RECORD_TYPES } from './domains.schemas.js'

const tldts = lazy<typeof Tldts>('tldts')

/** A custom domain name, checked and in its forms. */
export interface DomainName {
  /** ASCII form (IDNA, punycode for non-ASCII labels), lowercase, no trailing dot. */
  name: string
  /** The same name for people (Unicode labels). */
  unicode: string
  /** A registrable domain (`example.com`): it cannot carry a CNAME, so ALIAS/ANAME is needed. */
  apex: boolean
  /** The name of the DNS record to create, relative to the registrable domain: `shop`, or `@` for an apex. */
  recordName: string
}

export type DomainNameResult = { ok: true; domain: DomainName } | { ok: false; message: string }

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const MAX_NAME_LENGTH = 253

/**
 * Checks a domain name as a customer types it: IDNA (UTS #46) to its ASCII form, at most 253
 * characters, labels of 1 to 63 letters, digits and inner hyphens, not an IP address, not a
 * public suffix, and not the platform's own domain or one of its subdomains.
 */
export function parseDomainName(input: string, platformDomain: string | undefined): DomainNameResult {
  const trimmed = input.trim().replace(/\.$/, '')
  const shown = JSON.stringify(input)
  if (!trimmed) return { ok: false, message: 'The domain name is empty.' }
  if (/[/:@?#\s]/.test(trimmed)) {
    return { ok: false, message: `${shown} is not a domain name: give the bare host name, without scheme, port, path or spaces (e.g. shop.example.com).` }
  }
  if (net.isIP(trimmed) || net.isIP(trimmed.replace(/^\[|\]$/g, '')) || /^[0-9.]+$/.test(trimmed)) {
    return { ok: false, message: `${shown} is an IP address: custom domains are DNS names (e.g. shop.example.com).` }
  }
  const ascii = domainToASCII(trimmed)
  if (!ascii) return { ok: false, message: `${shown} is not a valid internationalised domain name (IDNA).` }
  if (ascii.length > MAX_NAME_LENGTH) return { ok: false, message: `${shown} is longer than ${MAX_NAME_LENGTH} characters in its ASCII form.` }
  const labels = ascii.split('.')
  if (labels.length < 2) return { ok: false, message: `${shown} has a single label: use a full domain name such as example.com.` }
  const bad = labels.find((label) => !LABEL.test(label))
  if (bad !== undefined) {
    return {
      ok: false,
      message: `${shown} has an invalid label "${bad}": labels are 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen.`,
    }
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) return { ok: false, message: `${shown} ends in a numeric label: that is not a DNS name.` }
  if (platformDomain && (ascii === platformDomain || ascii.endsWith(`.${platformDomain}`))) {
    return { ok: false, message: `${shown} is under the platform's own domain ${platformDomain}: projects are already published there.` }
  }
  const { getDomain, getPublicSuffix } = tldts()
  const registrable = getDomain(ascii, { allowPrivateDomains: true })
  if (!registrable || ascii === getPublicSuffix(ascii, { allowPrivateDomains: true })) {
    return { ok: false, message: `${shown} is a public suffix (like com or co.uk), not a domain you can own.` }
  }
  const apex = registrable === ascii
  return {
    ok: true,
    domain: { name: ascii, unicode: domainToUnicode(ascii), apex, recordName: apex ? '@' : ascii.slice(0, -registrable.length - 1) },
  }
}

/** The record a customer creates at their DNS provider, as the API and the CLI show it. */
export interface DnsRecordToCreate {
  type: (typeof DNS_RECORD_TYPES)[number]
  /** Relative to the customer's zone: the subdomain label, or `@` for the apex. */
  name: string
  value: string
  ttl: number
  note: string
}

export const RECORD_TTL = 3600

export function recordToCreate(domain: { name: string; apex: boolean }, target: string): DnsRecordToCreate {
  if (domain.apex) {
    return {
      type: 'ALIAS',
      name: '@',
      value: target,
      ttl: RECORD_TTL,
      note: `${domain.name} is an apex domain, which cannot carry a CNAME: create an ALIAS or ANAME record (not every DNS provider supports them), or A/AAAA records with exactly the addresses of ${target}.`,
    }
  }
  const registrable = tldts().getDomain(domain.name, { allowPrivateDomains: true }) ?? domain.name
  const name = domain.name.slice(0, Math.max(0, domain.name.length - registrable.length - 1)) || domain.name
  return {
    type: 'CNAME',
    name,
    value: target,
    ttl: RECORD_TTL,
    note: `In the DNS zone of ${registrable}, create a CNAME record named ${name} with the value ${target}, and remove any A or AAAA record of the same name.`,
  }
}

/** Lowercase, no trailing dot, no port: how a Host header or an SNI name is compared. */
export function normalizeHost(host: string): string {
  let value = host.trim().toLowerCase()
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined)
  const colon = value.lastIndexOf(':')
  if (colon > 0 && value.indexOf(':') === colon) value = value.slice(0, colon)
  return value.replace(/\.$/, '')
}
