// The part of autocannon's programmatic API the harness uses (autocannon ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface RawRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  export interface RequestSpec extends RawRequest {
    setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest
  }

  export interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    requests?: RequestSpec[]
    connections?: number
    pipelining?: number
    duration?: number
    overallRate?: number
    timeout?: number
    sampleInt?: number
    workers?: number
  }

  export interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    requests: { total: number; average: number }
    throughput: { total: number }
    latency: Record<string, number>
    statusCodeStats: Record<string, { count: number }>
  }

  export interface Instance extends EventEmitter {
    stop(): void
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this
    on(event: 'done', listener: (result: Result) => void): this
    on(event: 'error', listener: (error: Error) => void): this
  }

  function autocannon(options: Options, callback?: (error: Error | null, result: Result) => void): Instance
  export default autocannon
}
