import type { Server } from 'node:http'

/**
 * What bounds the hold one client can take on the process: slow or idle clients must not keep
 * sockets forever, and connections must not outnumber the file descriptors the process has.
 * `server.ts` applies them to every listener before it listens; tests apply the same values,
 * with shorter timeouts where they need them.
 */
export interface ConnectionLimits {
  /** The request line and headers must arrive within this, from the request's first byte; else 408 and close. */
  readonly headersTimeoutMs: number
  /** The whole request, body included, must arrive within this; else 408 and close. */
  readonly requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number
  /** Requests served on one connection: the last answer carries `Connection: close` and the connection ends. */
  readonly maxRequestsPerSocket: number
  /** Connections open at once, per listener; a connection beyond is closed as soon as it is accepted. */
  readonly maxConnections: number
  /** How often the header and request timeouts are checked: a timeout fires up to this much late. */
  readonly timeoutCheckIntervalMs: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so the balancer closes first.
  keepAliveTimeoutMs: 72_000,
  // As nginx's keepalive_requests: reconnecting every 1,000 requests costs nothing measurable, and
  // long-lived clients are spread again across instances behind a balancer.
  maxRequestsPerSocket: 1_000,
  maxConnections: 10_000,
  // Node's default is 30 s, which would let a 10 s header timeout hold a socket for up to 40 s.
  timeoutCheckIntervalMs: 1_000,
})

/** The limits of a process: the defaults, with the configured connection cap. */
export function connectionLimits(config: { maxConnections: number }, overrides: Partial<ConnectionLimits> = {}): ConnectionLimits {
  return Object.freeze({ ...DEFAULT_CONNECTION_LIMITS, maxConnections: config.maxConnections, ...overrides })
}

/** Node's check interval is a property it reads when listening starts; it is not in its types. */
type CheckedServer = Server & { connectionsCheckingInterval: number }

/** Applies the limits to a server that is not listening yet. */
export function applyConnectionLimits(server: Server, limits: ConnectionLimits): void {
  if (server.listening) throw new Error('Connection limits must be applied before the server listens: Node reads the timeout check interval when listening starts.')
  server.headersTimeout = limits.headersTimeoutMs
  server.requestTimeout = limits.requestTimeoutMs
  server.keepAliveTimeout = limits.keepAliveTimeoutMs
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket
  server.maxConnections = limits.maxConnections
  ;(server as CheckedServer).connectionsCheckingInterval = limits.timeoutCheckIntervalMs
}

/** The limits a server was given, to give another listener of the same app the same. */
export function connectionLimitsOf(server: Server): ConnectionLimits {
  return Object.freeze({
    headersTimeoutMs: server.headersTimeout,
    requestTimeoutMs: server.requestTimeout,
    keepAliveTimeoutMs: server.keepAliveTimeout,
    maxRequestsPerSocket: server.maxRequestsPerSocket ?? 0,
    maxConnections: server.maxConnections,
    timeoutCheckIntervalMs: (server as CheckedServer).connectionsCheckingInterval,
  })
}
