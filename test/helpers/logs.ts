import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { pino } from 'pino'

/** A pino logger like the process's (same redaction), at the most verbose level, writing into memory. */
export function captureLogs() {
  let text = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8')
      done()
    },
  })
  const logger = pino({ level: 'trace', redact: ['req.headers.authorization'] }, stream)
  return {
    logger,
    get text() {
      return text
    },
    /** Every line, each of which must be one JSON object: nothing a client sent splits or forges a line. */
    lines(): Record<string, unknown>[] {
      assert.ok(text.endsWith('\n'), 'the log ends with a whole line')
      assert.ok(!text.includes('\r'), 'no carriage return in the log')
      return text
        .slice(0, -1)
        .split('\n')
        .map((line) => {
          const parsed = JSON.parse(line) as unknown
          assert.ok(parsed && typeof parsed === 'object' && !Array.isArray(parsed), `not a JSON object: ${line}`)
          return parsed as Record<string, unknown>
        })
    },
  }
}
