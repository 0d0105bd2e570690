import { hash, randomInt } from 'node:crypto'
import type { Environment } from '../config.js'

/**
 * API key format: `as_live_<random>_<checksum>` (`as_test_` on staging).
 *
 * - The fixed prefix lets secret scanners find leaked keys and tells the environment apart.
 * - `<random>` is 28 base62 characters, about 166 bits from the CSPRNG; lists show the first 4,
 *   which leaves more than 140 bits unknown to anyone who sees a list or the database.
 * - `<checksum>` is 6 base62 characters of SHA-256 over prefix and random part, so a mistyped
 *   key is rejected without a database lookup.
 * Only the SHA-256 of the whole key is stored.
 */
export const KEY_PREFIXES: Readonly<Record<Environment, string>> = { production: 'as_live_', staging: 'as_test_' }

/** The challenge of a request without a valid key (RFC 6750's `WWW-Authenticate`). */
export const REALM = 'Bearer realm="adoption-store"'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const RANDOM_LENGTH = 28
export const CHECKSUM_LENGTH = 6
const KEY_PATTERN = new RegExp(`^(as_live_|as_test_)([0-9A-Za-z]{${RANDOM_LENGTH}})_([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`)
/** How much of the secret is kept to recognise a key in lists: prefix plus 4 characters. */
export const DISPLAY_LENGTH = 'as_live_'.length + 4

export interface NewApiKey {
  /** Shown once, to the creator. */
  secret: string
  hash: string
  prefix: string
}

export type ParsedApiKey = { ok: true; hash: string } | { ok: false; reason: 'malformed' | 'checksum' | 'environment' }

export function generateApiKey(environment: Environment): NewApiKey {
  const body = KEY_PREFIXES[environment] + randomBase62(RANDOM_LENGTH)
  const secret = `${body}_${checksum(body)}`
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, DISPLAY_LENGTH) }
}

/** Checks a presented key's shape, checksum and environment, without touching storage. */
export function parseApiKey(token: string, environment: Environment): ParsedApiKey {
  const match = KEY_PATTERN.exec(token)
  if (!match) return { ok: false, reason: 'malformed' }
  const [, prefix, random, sum] = match as unknown as [string, string, string, string]
  if (checksum(prefix + random) !== sum) return { ok: false, reason: 'checksum' }
  if (prefix !== KEY_PREFIXES[environment]) return { ok: false, reason: 'environment' }
  return { ok: true, hash: hashApiKey(token) }
}

/** One-shot hashing (`crypto.hash`): a third of the cost of a Hash object, on every request with a key. */
export function hashApiKey(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** A random identifier in base62, e.g. for public ids. */
export function randomBase62(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)]
  return out
}

/** `value` (a whole number ≥ 0) in base62, its last `length` digits, zero-padded: in ASCII order, so such strings sort as their values do. */
export function base62Digits(value: number, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) {
    out = ALPHABET[value % 62] + out
    value = Math.floor(value / 62)
  }
  return out
}

function checksum(body: string): string {
  return base62Digits(hash('sha256', body, 'buffer').readUInt32BE(0), CHECKSUM_LENGTH)
}
