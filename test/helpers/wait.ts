import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Waits until `condition` holds, checking every `everyMs`: for what the service does in the
 * background after it has answered (a key's last use, say), instead of a fixed pause that is too
 * short on a loaded machine and too long on an idle one. Fails with `what` after `timeoutMs`.
 */
export async function eventually(what: string, condition: () => Promise<boolean> | boolean, { timeoutMs = 5_000, everyMs = 10 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not so after ${timeoutMs} ms`)
    await sleep(everyMs)
  }
}
