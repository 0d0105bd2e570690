import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/** One log line per request, on completion; no line on arrival. Headers (and so keys) are never logged. */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}

/** What `BatchedLines` writes to: pino's own destination (sonic-boom). */
export interface LineSink {
  write(chunk: string): boolean
  flush(callback: (error?: Error) => void): void
  flushSync(): void
}

/** How long a log line may wait to be written with the lines after it. */
export const LOG_BATCH_MS = 5

/**
 * Hands log lines to the asynchronous destination in batches, joined: the lines of 5 ms at most.
 * Line by line, sonic-boom appends each to the text still waiting for the write in flight and
 * measures that whole text again (`Buffer.byteLength`), and starts a write (a copy and a
 * thread-pool task) for each line that finds none in flight: under load that cost more than
 * building the line. Lines keep their order.
 */
export class BatchedLines {
  private lines: string[] = []
  private scheduled = false

  constructor(private readonly sink: LineSink) {}

  write(line: string): boolean {
    this.lines.push(line)
    if (!this.scheduled) {
      this.scheduled = true
      setTimeout(this.handOn, LOG_BATCH_MS)
    }
    return true
  }

  /** Passes on the lines waiting now (the destination then writes them asynchronously). */
  readonly handOn = (): void => {
    this.scheduled = false
    if (this.lines.length === 0) return
    const chunk = this.lines.length === 1 ? this.lines[0]! : this.lines.join('')
    this.lines = []
    this.sink.write(chunk)
  }

  /** Writes everything, then calls back (pino's `logger.flush`). */
  flush(callback: (error?: Error) => void = () => undefined): void {
    this.handOn()
    this.sink.flush(callback)
  }

  /** Writes everything, synchronously: at exit. */
  flushSync(): void {
    this.handOn()
    this.sink.flushSync()
  }
}
