import type Dns from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import net from 'node:net'
import ipaddr from 'ipaddr.js'
import { lazy } from '../lazy.js'

/** Loaded at the first resolution: a command that only writes events to the outbox never resolves a host. */
const dns = lazy<typeof Dns>('node:dns/promises')

/**
 * Which addresses webhooks may reach: public unicast addresses, and the networks the operator
 * allows although they are private, loopback or link-local (WEBHOOK_ALLOWED_NETWORKS). Loopback,
 * private, link-local (cloud metadata at 169.254.169.254), unique-local, carrier-grade NAT,
 * multicast, reserved ranges, and every IPv6 form that embeds an IPv4 address (IPv4-compatible,
 * translated, NAT64, 6to4, Teredo: `embeddedIPv4`) are refused otherwise. Plain http reaches
 * only the allowed networks.
 */
export class AddressPolicy {
  private readonly allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][]

  constructor(allowedNetworks: readonly string[]) {
    this.allowed = allowedNetworks.map((network) => ipaddr.parseCIDR(network))
  }

  /** Why `address` may not be reached; undefined when it may. */
  refusal(address: string, plainHttp: boolean): string | undefined {
    let ip: ipaddr.IPv4 | ipaddr.IPv6
    try {
      // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
      ip = ipaddr.process(address)
    } catch {
      return `${address} is not an IP address`
    }
    if (this.isAllowedNetwork(ip)) return undefined
    if (plainHttp) return `plain http may only reach the networks of WEBHOOK_ALLOWED_NETWORKS, and ${address} is not in them: use https`
    const embedded = ip.kind() === 'ipv6' ? embeddedIPv4(ip as ipaddr.IPv6) : undefined
    if (embedded) {
      // Refused whatever it embeds (a translator or tunnel decides where it goes), but named by the
      // IPv4 address it carries when that one is refused too, since that is what it may reach.
      const range = embedded.ipv4.range()
      const reaches = range === 'unicast' ? '' : `, which embeds ${embedded.ipv4.toString()}, a ${range} address`
      return `${address} is an ${embedded.form} address${reaches}; webhooks may not reach IPv4 addresses through IPv6 unless WEBHOOK_ALLOWED_NETWORKS allows the IPv6 network`
    }
    const range = ip.range()
    return range === 'unicast' ? undefined : `${address} is a ${range} address, which webhooks may not reach unless WEBHOOK_ALLOWED_NETWORKS allows it`
  }

  private isAllowedNetwork(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.allowed.some(([network, bits]) => ip.kind() === network.kind() && ip.match(network, bits))
  }
}

/**
 * The IPv4 address an IPv6 address carries, for every form that embeds one: IPv4-compatible
 * (::/96, deprecated), IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96, and the local-use 64:ff9b:1::/48, read as its /96 form), 6to4 (2002::/16, the
 * 32 bits after the prefix) and Teredo (2001::/32, the client's address inverted in the last 32
 * bits). `::` and `::1` are not IPv4-compatible: their own ranges judge them.
 */
export function embeddedIPv4(ip: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4 } | undefined {
  const w = ip.parts
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  const last = fromWords(w[6]!, w[7]!)
  const zeros = (from: number, to: number) => w.slice(from, to).every((word) => word === 0)
  if (zeros(0, 6) && !(w[6] === 0 && w[7]! <= 1)) return { form: 'IPv4-compatible (::/96)', ipv4: last }
  if (zeros(0, 5) && w[5] === 0xffff) return { form: 'IPv4-mapped (::ffff:0:0/96)', ipv4: last }
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return { form: 'IPv4-translated (::ffff:0:0:0/96)', ipv4: last }
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return { form: 'NAT64 (64:ff9b::/96)', ipv4: last }
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return { form: 'NAT64 local-use (64:ff9b:1::/48)', ipv4: last }
  if (w[0] === 0x2002) return { form: '6to4 (2002::/16)', ipv4: fromWords(w[1]!, w[2]!) }
  if (w[0] === 0x2001 && w[1] === 0) return { form: 'Teredo (2001::/32)', ipv4: fromWords(w[6]! ^ 0xffff, w[7]! ^ 0xffff) }
  return undefined
}

/** The error an attempt fails with when its host is refused. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS'
}

/**
 * A `lookup` for the HTTP(S) request: resolves the host (through DNS_RESOLVERS when set, else the
 * system's resolver), keeps the addresses the policy allows, and fails when none is left. The
 * connection is made to the address checked here, so a DNS answer that changes between a check
 * and the connection (DNS rebinding) cannot get through.
 */
export function guardedLookup(policy: AddressPolicy, servers: readonly string[], plainHttp: boolean): LookupFunction {
  const resolve = hostResolver(servers)
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        if (found.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 4)
        const usable = found.filter(({ address }) => policy.refusal(address, plainHttp) === undefined)
        const first = usable[0]
        if (!first) return callback(new BlockedAddressError(onlyRefused(policy, hostname, found, plainHttp)), '', 4)
        if (options.all) return callback(null, usable)
        callback(null, first.address, first.family)
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    )
  }
}

export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>

/**
 * Resolves a host name to its addresses: through DNS_RESOLVERS when set, else the system's
 * resolver. `localhost` and names under it are loopback whatever DNS says (RFC 6761), so a
 * resolver that does not know them cannot make them look unresolved.
 */
export function hostResolver(servers: readonly string[]): ResolveHost {
  let resolver: Dns.Resolver | undefined
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '')
    if (name === 'localhost' || name.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]
    if (servers.length === 0) return dns().lookup(hostname, { all: true, verbatim: true })
    if (!resolver) {
      resolver = new (dns().Resolver)({ timeout: 2_000, tries: 2 })
      resolver.setServers([...servers])
    }
    const [v4, v6] = await Promise.all([resolver.resolve4(hostname).catch(() => []), resolver.resolve6(hostname).catch(() => [])])
    return [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))]
  }
}

function onlyRefused(policy: AddressPolicy, hostname: string, found: readonly { address: string }[], plainHttp: boolean): string {
  return `${hostname} resolves only to refused addresses: ${policy.refusal(found[0]!.address, plainHttp)}`
}

/**
 * For a URL whose host is a name, when an endpoint is added or its URL changed: why it is refused
 * (it resolves now, and only to refused addresses), or undefined. A name that does not resolve
 * now, or that DNS cannot answer for, is not refused: its record may not be created yet, and every
 * attempt judges what DNS answers then.
 */
export async function nameRefusal(policy: AddressPolicy, resolve: ResolveHost, host: string, plainHttp: boolean): Promise<string | undefined> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host
  if (net.isIP(bare)) return undefined
  const found = await resolve(bare).catch(() => [])
  if (found.length === 0) return undefined
  return found.some(({ address }) => policy.refusal(address, plainHttp) === undefined) ? undefined : onlyRefused(policy, bare, found, plainHttp)
}

/** For a URL whose host is an IP address (no lookup happens): why it is refused, or undefined. */
export function literalRefusal(policy: AddressPolicy, host: string, plainHttp: boolean): string | undefined {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host
  return net.isIP(bare) ? policy.refusal(bare, plainHttp) : undefined
}
