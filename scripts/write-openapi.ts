/**
 * Writes the OpenAPI document generated from the route schemas to `openapi.json`.
 * Run `npm run openapi` after changing a route; CI fails when the committed file drifts.
 */
import fs from 'node:fs'
import { generateOpenApi } from '../src/openapi/generate.js'

const target = new URL('../openapi.json', import.meta.url)
fs.writeFileSync(target, `${JSON.stringify(await generateOpenApi(), null, 2)}\n`)
process.stdout.write(`wrote ${target.pathname}\n`)
