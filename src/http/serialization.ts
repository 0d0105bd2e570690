import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type Serializer = ReturnType<ReturnType<SerializerSelector.SerializerFactory>>

/** The shared schemas and options of each serializer context, as text, numbered. */
const contexts = new Map<string, number>()
const serializers = new Map<string, Serializer>()

/**
 * Fastify's own response serializer compiler (fast-json-stringify), each distinct schema compiled
 * once per process. Fastify compiles one serializer per route and status, though most of them
 * share a schema (the Error envelope answers every route's 4xx): several hundred compilations at
 * start-up for a few dozen schemas, the largest part of the start-up's work. What is compiled
 * depends only on the route's schema, the shared schemas it may reference and the serializer
 * options (data, never functions: the service sets none), all part of the key.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const text = JSON.stringify([externalSchemas ?? null, options ?? null])
  let context = contexts.get(text)
  if (context === undefined) contexts.set(text, (context = contexts.size))
  return (route) => {
    const key = `${context}:${JSON.stringify(route.schema)}`
    let serializer = serializers.get(key)
    // A compiler of its own: Fastify's may drop the route schema's $id from the shared ones it keeps.
    if (!serializer) serializers.set(key, (serializer = SerializerSelector()(externalSchemas, options)(route)))
    return serializer
  }
}
