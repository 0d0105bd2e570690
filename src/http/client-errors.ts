import type Http from 'node:http'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ApiError } from '../errors.js'
import { lazy } from '../lazy.js'
import { MAX_URL_LENGTH } from './request-limits.js'

// Loaded at the first refusal: the commands that build the domains feature load this module but serve nothing.
const http = lazy<typeof Http>('node:http')

/** What Node's HTTP server reports through its `clientError` event. */
export interface ClientError extends Error {
  code?: string
  /** llhttp's fixed description of a parse error, e.g. "Invalid header value char". */
  reason?: string
}

/**
 * Answers what Node's HTTP server refuses before any route is known, in the API's error envelope,
 * then closes the connection: a request too slow to arrive (408, the header and request
 * timeouts), a request line and headers over Node's size limit (431), bytes that are not
 * HTTP/1.1 (400). Fastify's `clientErrorHandler`, and the `clientError` listener of every other
 * listener serving the app. Nothing is logged: a slow or broken client is not an operator's
 * concern, and logging each one would let it flood the logs.
 */
export function answerClientError(error: ClientError, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // An answer already begun on this connection cannot be followed by another; Node checks the same.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (socket.writable && !inFlight?.headersSent) {
    const refusal = toApiError(error)
    const body = JSON.stringify(refusal.toBody())
    socket.write(
      `HTTP/1.1 ${refusal.status} ${http().STATUS_CODES[refusal.status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    )
  }
  socket.destroy()
}

function toApiError(error: ClientError): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(
      'request_timeout',
      'The request did not arrive in time: its headers must arrive within the header timeout and all of it within the request timeout. Send requests without pausing.',
    )
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      'headers_too_large',
      `The request line and headers are larger than ${http().maxHeaderSize} bytes: shorten the URL (at most ${MAX_URL_LENGTH} bytes) or the headers.`,
    )
  }
  // llhttp's reasons are fixed sentences; anything else is not repeated to the client.
  const reason = error.reason && /^[\w .,'-]{1,100}$/.test(error.reason) ? ` (${error.reason})` : ''
  return new ApiError('invalid_request', `The request is not valid HTTP/1.1${reason}: check how it is written, header by header.`)
}
