/**
 * Writes the OpenAPI documents generated from the route schemas: the public API's to
 * `openapi.json`, the admin API's to `openapi.admin.json`. Run `npm run openapi` after changing a
 * route; CI fails when a committed file drifts.
 */
import fs from 'node:fs'
import { generateOpenApiDocuments } from './openapi-documents.js'

for (const [file, document] of Object.entries(await generateOpenApiDocuments())) {
  const target = new URL(`../${file}`, import.meta.url)
  fs.writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`)
  process.stdout.write(`wrote ${target.pathname}\n`)
}
