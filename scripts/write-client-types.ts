/**
 * Writes the client's types generated from the committed `openapi.json` to `src/client/schema.ts`.
 * Run `npm run client:types` after `npm run openapi`; a test fails when the committed file drifts.
 */
import { CLIENT_SCHEMA, generateClientTypes } from './client-types.js'
import { writeGenerated } from './generated-file.js'

writeGenerated(CLIENT_SCHEMA, await generateClientTypes())
