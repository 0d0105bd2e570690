import { lookup as systemLookup } from 'node:dns/promises'
import { Resolver } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import net from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Which addresses webhooks may reach: public unicast addresses, and the networks the operator
 * allows although they are private, loopback or link-local (WEBHOOK_ALLOWED_NETWORKS). Loopback,
 * private, link-local (cloud metadata at 169.254.169.254), unique-local, carrier-grade NAT,
 * multicast, reserved and translated ranges (NAT64, 6to4, Teredo) are refused otherwise. Plain
 * http reaches only the allowed networks.
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
    const range = ip.range()
    return range === 'unicast' ? undefined : `${address} is a ${range} address, which webhooks may not reach unless WEBHOOK_ALLOWED_NETWORKS allows it`
  }

  private isAllowedNetwork(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.allowed.some(([network, bits]) => ip.kind() === network.kind() && ip.match(network, bits))
  }
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
  const resolver = servers.length > 0 ? new Resolver({ timeout: 2_000, tries: 2 }) : undefined
  if (resolver) resolver.setServers([...servers])
  const resolve = async (hostname: string): Promise<{ address: string; family: number }[]> => {
    if (!resolver) return systemLookup(hostname, { all: true, verbatim: true })
    const [v4, v6] = await Promise.all([resolver.resolve4(hostname).catch(() => []), resolver.resolve6(hostname).catch(() => [])])
    return [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))]
  }
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        if (found.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 4)
        const usable = found.filter(({ address }) => policy.refusal(address, plainHttp) === undefined)
        const first = usable[0]
        if (!first) return callback(new BlockedAddressError(`${hostname} resolves only to refused addresses: ${policy.refusal(found[0]!.address, plainHttp)}`), '', 4)
        if (options.all) return callback(null, usable)
        callback(null, first.address, first.family)
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    )
  }
}

/** For a URL whose host is an IP address (no lookup happens): why it is refused, or undefined. */
export function literalRefusal(policy: AddressPolicy, host: string, plainHttp: boolean): string | undefined {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host
  return net.isIP(bare) ? policy.refusal(bare, plainHttp) : undefined
}
