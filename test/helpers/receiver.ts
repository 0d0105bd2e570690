/**
 * A real HTTP server that receives webhooks on loopback, for tests: it records every request
 * (headers and raw body) and answers as the test says. Signatures are checked here with
 * node:crypto, per the Standard Webhooks specification, independently of the library the
 * service signs with.
 */
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { eventually } from './wait.js'
import { eventSchemaError } from './webhook-events.js'

export interface Received {
  id: string
  timestamp: string
  signature: string
  headers: http.IncomingHttpHeaders
  body: string
  event: { type: string; timestamp: string; data: Record<string, unknown> }
}

/** What the receiver answers: a status and a body, or `hang` to never answer. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang'

export class Receiver {
  readonly received: Received[] = []
  /** Why each event that did not match its schema in openapi.json did not; `close()` fails when any did not. */
  readonly invalid: string[] = []
  /** The types of the events that matched their schema. */
  readonly validTypes = new Set<string>()
  /** Answers for the next requests, in order; then `fallback`. */
  readonly answers: Answer[] = []
  fallback: Answer = { status: 204 }
  private readonly hanging = new Set<http.ServerResponse>()

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    // The handler needs the receiver, which needs the server's port.
    const made: { receiver?: Receiver } = {}
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => made.receiver?.handle(request, Buffer.concat(chunks).toString('utf8'), response))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    made.receiver = new Receiver(server, `http://127.0.0.1:${port}/hooks`)
    return made.receiver
  }

  private handle(request: http.IncomingMessage, body: string, response: http.ServerResponse): void {
    this.received.push({
      id: String(request.headers['webhook-id']),
      timestamp: String(request.headers['webhook-timestamp']),
      signature: String(request.headers['webhook-signature']),
      headers: request.headers,
      body,
      event: JSON.parse(body) as Received['event'],
    })
    const invalid = eventSchemaError(body)
    if (invalid) this.invalid.push(invalid)
    else this.validTypes.add(this.received[this.received.length - 1]!.event.type)
    const answer = this.answers.shift() ?? this.fallback
    if (answer === 'hang') {
      this.hanging.add(response)
      return
    }
    response.writeHead(answer.status, answer.headers ?? {})
    response.end(answer.body ?? '')
  }

  /** The requests carrying events of `type`. */
  of(type: string): Received[] {
    return this.received.filter((r) => r.event.type === type)
  }

  async waitFor(type: string, count = 1, timeoutMs = 10_000): Promise<Received[]> {
    await eventually(`${count} ${type} event(s) received`, () => this.of(type).length >= count, { timeoutMs })
    return this.of(type)
  }

  /** Stops; fails when an event received did not match its schema in the published document. */
  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy()
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
    assert.deepEqual(this.invalid, [], 'every event matches its schema in openapi.json')
  }
}

/** The signatures of `webhook-signature` that verify with `secret`, computed here per Standard Webhooks. */
export function validSignatures(received: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>, secret: string): string[] {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${received.id}.${received.timestamp}.${received.body}`).digest()
  return received.signature.split(' ').filter((part) => {
    const [version, signature] = part.split(',')
    if (version !== 'v1' || !signature) return false
    const sent = Buffer.from(signature, 'base64')
    return sent.length === expected.length && timingSafeEqual(sent, expected)
  })
}

export function assertSigned(received: Received, secret: string): void {
  assert.equal(validSignatures(received, secret).length, 1, `the signature of ${received.id} verifies with the endpoint's secret`)
  assert.match(received.id, /^msg_[0-9A-Za-z]{24}$/)
  assert.match(received.timestamp, /^\d+$/)
  assert.equal(received.headers['content-type'], 'application/json')
}
