/**
 * Writes the client's types generated from the committed `openapi.json` to `src/client/schema.ts`.
 * Run `npm run client:types` after `npm run openapi`; a test fails when the committed file drifts.
 */
import fs from 'node:fs'
import { CLIENT_SCHEMA, generateClientTypes } from './client-types.js'

fs.writeFileSync(CLIENT_SCHEMA, await generateClientTypes())
process.stdout.write(`wrote ${CLIENT_SCHEMA.pathname}\n`)
