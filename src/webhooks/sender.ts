import type Http from 'node:http'
import type Https from 'node:https'
import { lazy } from '../lazy.js'
import { type AddressPolicy, guardedLookup, literalRefusal } from './address-guard.js'

// Loaded at the first delivery: a command that only writes events to the outbox never sends one.
const http = lazy<typeof Http>('node:http')
const https = lazy<typeof Https>('node:https')

/** The most of an answer's body that is kept, to show in the delivery log. */
export const EXCERPT_BYTES = 1024

export interface Attempt {
  url: string
  body: string
  headers: Record<string, string>
}

/** How an attempt went: `ok` for a 2xx answer; anything else (3xx included) is a failure. */
export interface AttemptResult {
  ok: boolean
  /** The HTTP status, when an answer came. */
  status: number | null
  latencyMs: number
  /** The first KiB at most of the answer's body. */
  excerpt: string | null
  /** Why it failed, for people. */
  error: string | null
}

export interface SenderOptions {
  policy: AddressPolicy
  dnsServers: readonly string[]
  timeoutMs: number
}

/**
 * Sends one webhook attempt: POST, a bounded time from connecting to the end of the answer, no
 * redirect followed (a 3xx is a failure), the address checked when connecting, and no more of
 * the answer read than the excerpt kept.
 */
export class WebhookSender {
  private readonly lookups: { plain: ReturnType<typeof guardedLookup>; tls: ReturnType<typeof guardedLookup> }

  constructor(private readonly options: SenderOptions) {
    this.lookups = { plain: guardedLookup(options.policy, options.dnsServers, true), tls: guardedLookup(options.policy, options.dnsServers, false) }
  }

  send(attempt: Attempt): Promise<AttemptResult> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const url = new URL(attempt.url)
    const plainHttp = url.protocol === 'http:'
    const refused = literalRefusal(this.options.policy, url.hostname, plainHttp)
    if (refused) return Promise.resolve({ ok: false, status: null, latencyMs: 0, excerpt: null, error: `Refused: ${refused}.` })

    return new Promise((resolve) => {
      let settled = false
      const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve({ ...result, latencyMs: elapsed() })
      }
      const request = (plainHttp ? http() : https()).request(url, {
        method: 'POST',
        headers: { ...attempt.headers, 'content-length': Buffer.byteLength(attempt.body).toString() },
        lookup: plainHttp ? this.lookups.plain : this.lookups.tls,
        agent: false,
      })
      const timer = setTimeout(() => request.destroy(new Error(`no complete answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs)
      request.on('error', (error: NodeJS.ErrnoException) => {
        const refusal = error.code === 'EBLOCKEDADDRESS'
        finish({ ok: false, status: null, excerpt: null, error: refusal ? `Refused: ${error.message}.` : `${error.code ? `${error.code}: ` : ''}${error.message}` })
      })
      request.on('response', (response) => {
        const status = response.statusCode ?? 0
        const chunks: Buffer[] = []
        let size = 0
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8')
          const ok = status >= 200 && status < 300
          const redirect = status >= 300 && status < 400 ? ` (redirects are not followed${response.headers.location ? `: Location ${response.headers.location.slice(0, 200)}` : ''})` : ''
          finish({ ok, status, excerpt: excerpt || null, error: ok ? null : `HTTP ${status}${redirect}` })
          response.destroy()
        }
        response.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk)
          size += chunk.length
          // Enough to show: the rest is not read.
          if (size >= EXCERPT_BYTES) done()
        })
        response.on('end', done)
        response.on('error', done)
      })
      request.end(attempt.body)
    })
  }
}
