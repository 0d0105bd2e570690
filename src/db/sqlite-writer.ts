/**
 * The SQLite writer thread (started by `SqliteWriter` in sqlite-threads.ts): the store's writing
 * connection (sqlite-writes.ts) on a thread of its own, answering each request as it comes.
 */
import { parentPort } from 'node:worker_threads'
import { type Open, type Request, SqliteWrites } from './sqlite-writes.js'

const port = parentPort!
const writes = new SqliteWrites()

port.on('message', (request: Request | Open) => {
  if (request.op === 'open') writes.open(request.file)
  else port.postMessage(writes.answer(request))
})
