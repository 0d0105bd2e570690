/**
 * Pebble (a test ACME CA) and pebble-challtestsrv (a test DNS server with a management API), from
 * Debian's `pebble` package, started on loopback ports for one test file. Every process started
 * here is tracked and killed by `stopAll()` (call it from `after`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

function installed(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Why the Pebble suites cannot run here, or false when they can. */
export const pebbleMissing = installed('pebble') && installed('pebble-challtestsrv') && installed('openssl')
  ? false
  : 'pebble, pebble-challtestsrv or openssl is not installed (Debian: apt-get install pebble openssl)'

const children = new Set<ChildProcess>()
const dirs = new Set<string>()

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)))
  children.add(child)
  child.once('exit', () => children.delete(child))
  return { child, output: () => output }
}

/** Kills every Pebble and challtestsrv started by this file and removes their files. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  dirs.clear()
}

/** `count` distinct TCP ports that were free a moment ago on 127.0.0.1 (all held open while chosen). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer()
          server.once('error', reject)
          server.listen(0, '127.0.0.1', () => resolve(server))
        }),
    ),
  )
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-pebble-'))
  dirs.add(dir)
  return dir
}

async function until(what: string, ready: () => Promise<boolean>, output: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${timeoutMs} ms\n${output()}`)
    await sleep(50)
  }
}

function request(url: string, options: { method?: string; body?: unknown; ca?: string } = {}): Promise<{ status: number; body: string }> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? https.request : http.request
  return new Promise((resolve, reject) => {
    const req = send(target, { method: options.method ?? 'GET', ca: options.ca, timeout: 5_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('timeout', () => req.destroy(new Error(`${url} timed out`)))
    req.on('error', reject)
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body))
  })
}

export interface CaaPolicy {
  tag: 'issue' | 'issuewild' | 'iodef'
  value: string
}

/** A running pebble-challtestsrv: a DNS server whose records tests set through its management API. */
export class ChallTestSrv {
  constructor(
    /** Its DNS address as DNS_RESOLVERS takes it: `127.0.0.1:<port>`. */
    readonly dnsServer: string,
    private readonly management: string,
  ) {}

  private async call(endpoint: string, body: unknown): Promise<void> {
    const response = await request(`${this.management}/${endpoint}`, { method: 'POST', body })
    if (response.status !== 200) throw new Error(`challtestsrv ${endpoint}: ${response.status} ${response.body}`)
  }

  setCname(host: string, target: string): Promise<void> {
    return this.call('set-cname', { host: `${host}.`, target: `${target}.` })
  }
  clearCname(host: string): Promise<void> {
    return this.call('clear-cname', { host: `${host}.` })
  }
  addA(host: string, addresses: string[]): Promise<void> {
    return this.call('add-a', { host: `${host}.`, addresses })
  }
  clearA(host: string): Promise<void> {
    return this.call('clear-a', { host: `${host}.` })
  }
  addAaaa(host: string, addresses: string[]): Promise<void> {
    return this.call('add-aaaa', { host: `${host}.`, addresses })
  }
  addCaa(host: string, policies: CaaPolicy[]): Promise<void> {
    return this.call('add-caa', { host: `${host}.`, policies })
  }
  clearCaa(host: string): Promise<void> {
    return this.call('clear-caa', { host: `${host}.` })
  }
}

/**
 * Starts pebble-challtestsrv answering DNS on loopback, with no default answers: a name has only
 * the records a test gives it (its defaults would give every name 127.0.0.1 and ::1).
 */
export async function startChallTestSrv(): Promise<ChallTestSrv> {
  const [dns = 0, management = 0] = await freePorts(2)
  const { output } = start('pebble-challtestsrv', [
    '-defaultIPv4',
    '',
    '-defaultIPv6',
    '',
    '-dns01',
    `127.0.0.1:${dns}`,
    '-http01',
    '',
    '-https01',
    '',
    '-tlsalpn01',
    '',
    '-management',
    `127.0.0.1:${management}`,
  ])
  const server = new ChallTestSrv(`127.0.0.1:${dns}`, `http://127.0.0.1:${management}`)
  await until('pebble-challtestsrv', async () => (await request(`http://127.0.0.1:${management}/clear-a`, { method: 'POST', body: { host: 'ready.' } })).status === 200, output)
  return server
}

/** A CA and a certificate for 127.0.0.1/localhost signed by it, for Pebble's own HTTPS endpoints. */
function pebbleListenerCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=adoption-store test CA')
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('key.pem'), '-out', file('req.csr'), '-subj', '/CN=localhost')
  fs.writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n')
  openssl('x509', '-req', '-in', file('req.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('cert.pem'), '-days', '2', '-extfile', file('ext.cnf'))
  return { ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') }
}

export interface Pebble {
  directoryUrl: string
  /** PEM file of the CA that signed Pebble's own HTTPS endpoint: ACME_CA_FILE. */
  caFile: string
  /** The root that signs the certificates Pebble issues (new at every start). */
  issuingRoot(): Promise<string>
}

/**
 * Starts Pebble: it validates HTTP-01 challenges on `httpPort` (the service's own HTTP port) at
 * the address challtestsrv gives the name, so validations reach the service on loopback.
 */
export async function startPebble(options: { httpPort: number; dnsServer: string }): Promise<Pebble> {
  const dir = tempDir()
  const certs = pebbleListenerCertificates(dir)
  let ports = await freePorts(3)
  while (ports.includes(options.httpPort)) ports = await freePorts(3)
  const [listen = 0, management = 0, tlsPort = 0] = ports
  const config = path.join(dir, 'pebble-config.json')
  fs.writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: certs.cert,
        privateKey: certs.key,
        httpPort: options.httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  )
  const { output } = start('pebble', ['-config', config, '-dnsserver', options.dnsServer], { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' })
  const ca = fs.readFileSync(certs.ca, 'utf8')
  const directoryUrl = `https://127.0.0.1:${listen}/dir`
  await until('pebble', async () => (await request(directoryUrl, { ca })).status === 200, output)
  return {
    directoryUrl,
    caFile: certs.ca,
    async issuingRoot() {
      const response = await request(`https://127.0.0.1:${management}/roots/0`, { ca })
      if (response.status !== 200) throw new Error(`pebble roots: ${response.status}`)
      return response.body
    },
  }
}
