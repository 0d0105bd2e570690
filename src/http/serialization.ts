import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'
import { onFirstUse } from './first-use.js'

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type Serializer = ReturnType<ReturnType<SerializerSelector.SerializerFactory>>

/** Each distinct JSON text of a schema or options, numbered. */
const textNumbers = new Map<string, number>()
/** The number of each object's text, found again by identity. */
const objectNumbers = new WeakMap<object, number>()

/**
 * The number of `value`'s content: equal for equal JSON texts. An object is written out once, at
 * its first use: Fastify copies the shared schemas once per app and per schema, but asks for a
 * serializer context (all of them, some 50 KB of text) once per plugin scope, about 30 times an
 * app; route schemas are the same objects in every app of a process. A schema is never changed
 * once declared (the compilers copy what they rewrite), so its number stays right.
 */
function contentNumber(value: unknown): number {
  const isObject = typeof value === 'object' && value !== null
  const known = isObject ? objectNumbers.get(value) : undefined
  if (known !== undefined) return known
  const text = JSON.stringify(value ?? null)
  let number = textNumbers.get(text)
  if (number === undefined) textNumbers.set(text, (number = textNumbers.size))
  if (isObject) objectNumbers.set(value, number)
  return number
}

const serializers = new Map<string, Serializer>()

/**
 * Fastify's own response serializer compiler (fast-json-stringify), each distinct schema compiled
 * once per process, at its first answer (./first-use.ts). Fastify asks for one serializer per
 * route and status, though most of them share a schema (the Error envelope answers every route's
 * 4xx): several hundred for a few dozen schemas. What is compiled depends only on the route's
 * schema, the shared schemas it may reference and the serializer options (data, never functions:
 * the service sets none), all part of the key, by their contents' numbers.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const shared = Object.entries(externalSchemas ?? {}).map(([id, schema]) => `${id}=${contentNumber(schema)}`)
  const context = `${contentNumber(options)}|${shared.join(',')}`
  return (route) => {
    const key = `${context}:${contentNumber(route.schema)}`
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
