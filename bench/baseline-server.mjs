// The baseline: the least a Node.js HTTP server can do to give the same answers as the service.
// A bare node:http server, in its own process, plain JavaScript (no loader, no framework), that
// serialises the service's own bodies (captured from it by the harness) with JSON.stringify on
// every request. It measures the runtime's ceiling on this machine for each scenario.
//
// Usage: node bench/baseline-server.mjs <config.json>
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import process from 'node:process'
import { setInterval } from 'node:timers'

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const { bodies } = config
const json = 'application/json; charset=utf-8'

function send(res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': json, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

const server = http.createServer((req, res) => {
  // The two error scenarios are told apart by their key, as the service does.
  const auth = req.headers.authorization
  if (auth === config.unauthorizedAuth) return send(res, 401, bodies.unauthorized)
  if (auth === config.limitedAuth) return send(res, 429, bodies.limited)

  if (req.method === 'POST') {
    // Read and parse the body, as any JSON API must, and answer the created animal.
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      let input
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        return send(res, 400, { code: 'invalid_request', message: 'Bad JSON', status: 400 })
      }
      send(res, 201, { ...bodies.created, name: input.name, categoryId: input.categoryId, status: input.status ?? 'available' })
    })
    return
  }
  if (req.url.startsWith('/sites/')) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(bodies.site) })
    return res.end(bodies.site)
  }
  if (req.url.startsWith('/v1/pets?')) return send(res, 200, auth === config.fullAuth ? bodies.listFull : bodies.list)
  if (req.url.startsWith('/v1/pets/')) return send(res, 200, bodies.pet)
  send(res, 404, { code: 'not_found', message: 'No route', status: 404 })
})

server.listen(config.port, '127.0.0.1')

// Never outlive the harness: if it dies without cleaning up (kill -9), the parent changes.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.exit(0)
}, 1000).unref()

// Exit through process.exit on a signal, so `node --cpu-prof` can write its profile.
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0))
