import net from 'node:net'

/**
 * A TCP proxy in front of a real server, to put a network fault between the service and its
 * database: refuse connections, or accept them and never answer (a hung server).
 */
export class TcpProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()
  private mode: 'forward' | 'hang' = 'forward'

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = net.createServer()
    const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)))
    await new Promise((resolve) => probe.close(resolve))
    const proxy = new TcpProxy(target, port)
    await proxy.listen()
    return proxy
  }

  /** Drops every connection and refuses new ones, as a stopped server does. */
  async refuse(): Promise<void> {
    await this.close()
  }

  /** Drops every connection; new ones are accepted and never answered, as a hung server does. */
  async hang(): Promise<void> {
    this.mode = 'hang'
    this.dropAll()
    if (!this.server) await this.listen()
  }

  /** Back to forwarding. */
  async restore(): Promise<void> {
    this.mode = 'forward'
    this.dropAll()
    if (!this.server) await this.listen()
  }

  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    this.dropAll()
    if (server) await new Promise((resolve) => server.close(resolve))
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', () => resolve())
    })
    this.server = server
  }

  private accept(client: net.Socket): void {
    this.sockets.add(client)
    client.on('close', () => this.sockets.delete(client))
    client.on('error', () => client.destroy())
    if (this.mode === 'hang') return
    const upstream = net.connect(this.target.port, this.target.host)
    this.sockets.add(upstream)
    upstream.on('close', () => {
      this.sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    client.pipe(upstream).pipe(client)
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }
}
