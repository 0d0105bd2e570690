// The baseline of the photo serving scenario: a bare node:http server, in its own process, plain
// JavaScript, that answers every request with one file's bytes held in memory and the headers the
// service sent with them (captured by the harness). The runtime's ceiling for serving that file.
//
// Usage: node bench/media-baseline-server.mjs <config.json>  ({ port, file, headers })
import { readFileSync } from 'node:fs'
import http from 'node:http'
import process from 'node:process'
import { setInterval } from 'node:timers'

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const body = readFileSync(config.file)
const headers = { ...config.headers, 'content-length': String(body.length) }

http
  .createServer((req, res) => {
    res.writeHead(200, headers)
    res.end(body)
  })
  .listen(config.port, '127.0.0.1')

// Never outlive the harness: if it dies without cleaning up (kill -9), the parent changes.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.exit(0)
}, 1000).unref()

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0))
