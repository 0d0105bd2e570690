/**
 * Child processes of the benchmark: started, watched, measured (/proc), and always stopped.
 *
 * Every process and temporary directory is registered here, so one `cleanup()` (on success,
 * on failure, on Ctrl-C) can end them all; a synchronous last resort runs on `exit`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

export interface Managed {
  name: string
  child: ChildProcess
  pid: number
  /** Where the process's stderr goes (its stdout goes to /dev/null unless asked otherwise). */
  stderrPath: string
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string | null>
  hasExited: () => boolean
}

const processes = new Set<Managed>()
const tempDirs = new Set<string>()
const asyncCleanups: (() => Promise<void>)[] = []

/** A fresh temporary directory, removed by cleanup. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

/** Work that must run at cleanup (dropping a database, deleting Redis keys); run in reverse order. */
export function onCleanup(work: () => Promise<void>): void {
  asyncCleanups.push(work)
}

/** A TCP port that was free on the loopback interface a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface StartOptions {
  env: NodeJS.ProcessEnv
  cwd: string
  /** Directory for the stderr file. */
  logDir: string
  /** Keep stdout in a file instead of /dev/null (for processes whose output we want to read). */
  stdoutToFile?: boolean
}

/** Starts `node <args>` directly (no shell, no npx), so `pid` is the server itself. */
export function startNode(name: string, args: string[], options: StartOptions): Managed {
  const stderrPath = path.join(options.logDir, `${name}.stderr.log`)
  const stderrFd = openSync(stderrPath, 'a')
  const stdout = options.stdoutToFile ? openSync(path.join(options.logDir, `${name}.stdout.log`), 'a') : 'ignore'
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', stdout, stderrFd] })
  closeSync(stderrFd)
  if (typeof stdout === 'number') closeSync(stdout)
  if (child.pid === undefined) throw new Error(`could not start ${name}`)
  let done = false
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true
      processes.delete(managed)
      resolve(code ?? signal)
    })
    child.once('error', () => {
      done = true
      processes.delete(managed)
      resolve(null)
    })
  })
  const managed: Managed = { name, child, pid: child.pid, stderrPath, exited, hasExited: () => done }
  processes.add(managed)
  return managed
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
export async function stopProcess(managed: Managed, graceMs = 12_000): Promise<void> {
  if (managed.hasExited()) return
  managed.child.kill('SIGTERM')
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref())
  if ((await Promise.race([managed.exited, timer])) === 'timeout') {
    managed.child.kill('SIGKILL')
    await managed.exited
  }
}

/** The last lines a process wrote to stderr, for error messages. */
export function stderrTail(managed: Managed, lines = 15): string {
  try {
    return readFileSync(managed.stderrPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

/** Polls `probe` until it answers true; fails early when the process dies. */
export async function waitUntil(managed: Managed, what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (managed.hasExited()) throw new Error(`${managed.name} exited before ${what}:\n${stderrTail(managed)}`)
    if (await probe().catch(() => false)) return
    await sleep(100)
  }
  throw new Error(`${managed.name}: timed out after ${timeoutMs} ms waiting for ${what}:\n${stderrTail(managed)}`)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// ---- /proc measurements --------------------------------------------------------------------

/** Peak resident set size (VmHWM) and current RSS (VmRSS), in KiB; undefined when gone. */
export function memoryOf(pid: number): { peakKiB: number; rssKiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { peakKiB: field('VmHWM'), rssKiB: field('VmRSS') }
  } catch {
    return undefined
  }
}

let clockTicks: number | undefined
/** User + system CPU time a process has used so far, in milliseconds (10 ms resolution). */
export function cpuMsOf(pid: number): number {
  clockTicks ??= (() => {
    try {
      return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      return 100
    }
  })()
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces; fields after it start behind the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    return ((utime + stime) * 1000) / clockTicks
  } catch {
    return NaN
  }
}

/**
 * User + system CPU time of this process's children that have ended and been waited for, in
 * milliseconds (cutime + cstime of /proc/self/stat): the CPU of a load generator run as a child
 * process (wrk) is read as the difference across its run, after it exits.
 */
export function endedChildrenCpuMs(): number {
  cpuMsOf(process.pid) // initialises clockTicks
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / (clockTicks ?? 100)
  } catch {
    return NaN
  }
}

/**
 * CPU time the whole machine has spent busy (all cores; user, nice, system, irq, softirq,
 * steal), in milliseconds. Minus what the server and the load generator used, it shows how much
 * else ran during a run: other processes, or PostgreSQL and Redis in that mode.
 */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number)
    cpuMsOf(process.pid) // initialises clockTicks
    return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / (clockTicks ?? 100)
  } catch {
    return NaN
  }
}

/** CPU used so far by this process and every process the harness started, in milliseconds. */
function ourCpuMs(): number {
  const own = process.cpuUsage()
  return (own.user + own.system) / 1000 + [...processes].reduce((sum, p) => sum + (cpuMsOf(p.pid) || 0), 0)
}

/** Cores' worth of CPU that processes other than ours used over the next `ms` milliseconds. */
export async function otherCpuOver(ms: number): Promise<number> {
  const busyBefore = machineBusyMs()
  const oursBefore = ourCpuMs()
  const start = Date.now()
  await sleep(ms)
  return (machineBusyMs() - busyBefore - (ourCpuMs() - oursBefore)) / (Date.now() - start)
}

/**
 * Waits (at most `maxMs`) until the rest of the machine uses less than `threshold` cores over
 * a 300 ms window. Answers how long it waited, and whether the machine was quiet in the end.
 */
export async function waitForQuiet(maxMs: number, threshold = 0.25): Promise<{ waitedMs: number; quiet: boolean }> {
  const start = Date.now()
  for (;;) {
    const other = await otherCpuOver(300)
    if (other < threshold) return { waitedMs: Date.now() - start, quiet: true }
    if (Date.now() - start >= maxMs) return { waitedMs: Date.now() - start, quiet: false }
  }
}

// ---- cleanup ---------------------------------------------------------------------------------

let cleaning: Promise<void> | undefined

/** Stops every process, runs registered cleanups, removes temporary directories. Idempotent. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...processes].map((p) => stopProcess(p, 8_000).catch(() => undefined)))
    for (const work of asyncCleanups.reverse()) {
      await work().catch((error: unknown) => process.stderr.write(`bench: cleanup step failed: ${String(error)}\n`))
    }
    removeTempDirs()
  })()
  return cleaning
}

// ---- a script's lifetime -------------------------------------------------------------------------

let aborting = false

/** True once the script was interrupted (SIGINT, SIGTERM or SIGHUP). */
export function aborted(): boolean {
  return aborting
}

/**
 * Runs a bench script's `main` to its end. On SIGINT, SIGTERM or SIGHUP the load is stopped
 * (`stopLoad`), the servers and temporary files cleaned up, and the script exits 130 (at once on a
 * second signal). A failure is printed as `<name>: <message>`, exit code 1. Cleans up at the end.
 */
export async function runMain(name: string, main: () => Promise<void>, stopLoad: () => void): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (aborting) process.exit(130)
      aborting = true
      process.stdout.write(`\n${name}: ${signal}: stopping the servers and removing temporary files…\n`)
      stopLoad()
      void cleanup().finally(() => process.exit(130))
    })
  }
  try {
    await main()
  } catch (error) {
    if (!aborting) {
      process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`)
      if (process.env.BENCH_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`)
      process.exitCode = 1
    }
  } finally {
    if (!aborting) await cleanup()
  }
}

function removeTempDirs(): void {
  for (const dir of tempDirs) {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
    tempDirs.delete(dir)
  }
}

/** Last resort at process exit (synchronous): kill what is left, remove temporary directories. */
process.on('exit', () => {
  for (const p of processes) p.child.kill('SIGKILL')
  removeTempDirs()
})
