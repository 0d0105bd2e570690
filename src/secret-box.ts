import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/**
 * Encrypts secrets at rest (certificate and ACME account private keys, webhook signing secrets) with AES-256-GCM under the key
 * from configuration. Each value is bound to its context (e.g. `certificate:shop.example.com`) as
 * additional authenticated data, so a ciphertext copied to another row does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer
  /** Keys that sealed values before the current one: they open, never seal (a key's rotation). */
  private readonly previous: Buffer[]

  constructor(key: string, previous: readonly string[] = []) {
    this.key = keyBytes(key)
    this.previous = previous.map(keyBytes)
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(context))
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':')
  }

  /** Throws when the value was sealed under none of the keys or under another context, or was altered. */
  open(sealed: string, context: string): string {
    return this.opened(sealed, context).plaintext
  }

  /**
   * The value sealed again under the current key, or undefined when the current key sealed it
   * already (a re-seal run twice changes nothing). Throws as `open` does.
   */
  reseal(sealed: string, context: string): string | undefined {
    const { plaintext, current } = this.opened(sealed, context)
    return current ? undefined : this.seal(plaintext, context)
  }

  private opened(sealed: string, context: string): { plaintext: string; current: boolean } {
    const [version, iv, tag, ciphertext] = sealed.split(':')
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Not a sealed value')
    for (const key of [this.key, ...this.previous]) {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
      decipher.setAAD(Buffer.from(context))
      decipher.setAuthTag(Buffer.from(tag, 'base64'))
      try {
        const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8')
        return { plaintext, current: key === this.key }
      } catch {
        // Not this key's (or altered): the next one.
      }
    }
    throw new Error('The value does not open with the configured keys: it was sealed with another key, or altered')
  }
}

function keyBytes(key: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64')
  if (bytes.length !== 32) throw new Error('The encryption key must be 32 bytes, as 64 hex digits or 44 base64 characters')
  return bytes
}
