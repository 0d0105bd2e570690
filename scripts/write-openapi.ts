/**
 * Writes the OpenAPI documents generated from the route schemas: the public API's to
 * `openapi.json`, the admin API's to `openapi.admin.json`. Run `npm run openapi` after changing a
 * route; CI fails when a committed file drifts.
 */
import { writeGenerated } from './generated-file.js'
import { generateOpenApiDocuments } from './openapi-documents.js'

for (const [file, document] of Object.entries(await generateOpenApiDocuments())) {
  const target = new URL(`../${file}`, import.meta.url)
  writeGenerated(target, `${JSON.stringify(document, null, 2)}\n`)
}
