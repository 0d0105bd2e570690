import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'
import { onFirstUse } from './first-use.js'

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type Serializer = ReturnType<ReturnType<SerializerSelector.SerializerFactory>>

/** The shared schemas and options of each serializer context, as text, numbered. */
const contexts = new Map<string, number>()
const serializers = new Map<string, Serializer>()

/**
 * Fastify's own response serializer compiler (fast-json-stringify), each distinct schema compiled
 * once per process, at its first answer (./first-use.ts). Fastify asks for one serializer per
 * route and status, though most of them share a schema (the Error envelope answers every route's
 * 4xx): several hundred for a few dozen schemas. What is compiled depends only on the route's
 * schema, the shared schemas it may reference and the serializer options (data, never functions:
 * the service sets none), all part of the key.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const text = JSON.stringify([externalSchemas ?? null, options ?? null])
  let context = contexts.get(text)
  if (context === undefined) contexts.set(text, (context = contexts.size))
  return (route) => {
    const key = `${context}:${JSON.stringify(route.schema)}`
    let serializer = serializers.get(key)
    if (!serializer) {
      // A compiler of its own: Fastify's may drop the route schema's $id from the shared ones it keeps.
      const compiled = onFirstUse(() => SerializerSelector()(externalSchemas, options)(route))
      serializer = ((data: unknown) => compiled()(data)) as Serializer
      serializers.set(key, serializer)
    }
    return serializer
  }
}
