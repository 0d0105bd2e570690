import { randomBytes } from 'node:crypto'
import os from 'node:os'

/** Who holds a lease: this host, this process, and a random part (two apps in one process differ). */
export function leaseHolder(): string {
  return `${os.hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`
}

/**
 * Background work done in passes: on a timer, and at once when asked (`kick`), never two passes
 * of one worker at a time (a kick during a pass runs another right after it). What the workers of
 * custom domains and webhooks share; each pass takes its rows under leases of its own.
 */
export class BackgroundPass {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = true

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.kick(), this.intervalMs)
    this.timer.unref()
    this.kick()
  }

  /** Runs a pass soon, or again after the current one. */
  kick(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.pass()
      .then(() => undefined)
      .catch(this.onError)
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          this.kick()
        }
      })
  }

  /** Stops scheduling and waits for the pass in flight, at most `graceMs`; leases it holds expire if cut short. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    if (this.running) await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, graceMs).unref())])
  }

  get isStopped(): boolean {
    return this.stopped
  }
}
