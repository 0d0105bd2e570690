import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto'

/**
 * Password hashing with scrypt (node:crypto, no native add-on). The stored form describes itself,
 * PHC-style: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64 without padding), so the cost can be
 * raised later while older hashes still verify with the parameters they were made with.
 *
 * N=2^15, r=8, p=3 is one of OWASP's equivalent minimums for scrypt: 32 MiB per hash (p runs
 * sequentially in Node, so memory stays at 32 MiB), about a quarter of a second of one thread.
 */
/** scrypt's cost parameters: N = 2^ln, the block size r, the parallelism p. */
export interface ScryptCost {
  ln: number
  r: number
  p: number
}

/** What a new hash costs in the service; verifying an older hash costs what it was made with. */
export const PASSWORD_COST: ScryptCost = { ln: 15, r: 8, p: 3 }
const SALT_BYTES = 16
const KEY_BYTES = 32
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

/** The longest password accepted: scrypt takes any length, this only bounds the work per request. */
export const MAX_PASSWORD_LENGTH = 1024

function derive(password: string, salt: Buffer, { ln, r, p }: ScryptCost, length: number): Promise<Buffer> {
  // maxmem above 128 * N * r, which Node's 32 MiB default refuses for N=2^15, r=8.
  const options: ScryptOptions = { N: 2 ** ln, r, p, maxmem: 256 * 2 ** ln * r }
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))))
}

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '')

/** A new hash of the password with a random salt, in the stored form. */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, cost, KEY_BYTES)
  return stored(cost, salt, key)
}

const stored = ({ ln, r, p }: ScryptCost, salt: Buffer, key: Buffer) => `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`

/** Whether the password matches the stored hash; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored)
  if (!match) return false
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  // Bounds on what a (corrupted) row may ask for: at most 256 MiB and a few seconds.
  if (ln < 10 || ln > 20 || r < 1 || p < 1 || p > 16 || 128 * 2 ** ln * r > 256 * 2 ** 20) return false
  const salt = Buffer.from(match[4]!, 'base64')
  const expected = Buffer.from(match[5]!, 'base64')
  if (expected.length < 16) return false
  const key = await derive(password, salt, { ln, r, p }, expected.length)
  return timingSafeEqual(key, expected)
}

/**
 * Spends the time of a real verification, for an unknown email: the answer then takes as long
 * as for a known one with a wrong password, so its timing does not reveal which emails exist.
 * The hash is well-formed, at the cost of new hashes, and no password matches it (its key is all
 * zeros).
 */
export async function verifyDummy(password: string, cost: ScryptCost = PASSWORD_COST): Promise<false> {
  await verifyPassword(password, stored(cost, Buffer.alloc(SALT_BYTES, 1), Buffer.alloc(KEY_BYTES)))
  return false
}

/** A one-time password for a new user: 144 random bits, 24 URL-safe characters. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
