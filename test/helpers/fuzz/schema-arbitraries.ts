/**
 * JSON Schema → fast-check arbitraries, for the subset of JSON Schema 2020-12 our OpenAPI
 * documents use: object, array, string (lengths, `pattern` through `fc.stringMatching`, formats
 * date-time and email), integer and number with bounds, enum and const, oneOf, anyOf, allOf
 * (merged), `type` lists and local `$ref`s.
 *
 * Written here because no well-kept library does this for fast-check v4 and OpenAPI 3.1: the
 * packages that exist are unmaintained, stop at older fast-check or JSON Schema drafts, or wrap a
 * faker; the subset we need is small enough to own.
 *
 * `valid` draws values that satisfy the schema, with its edges (min/max, minLength/maxLength,
 * every enum member, empty) drawn often; `invalid` draws values that break it in one place (a
 * wrong type, out of range, an unknown field, a missing required one, a huge or control-laden
 * string, deep nesting). Whether a drawn value is valid is never asserted by the fuzz tests: the
 * two only steer generation towards the interesting places.
 */
import fc from 'fast-check'

export interface JsonSchema {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  format?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  allOf?: JsonSchema[]
}

/** Values known to reach deeper than random ones (fixtures' slugs, domains, ids), by property or parameter name. */
export type Hints = Readonly<Record<string, fc.Arbitrary<unknown>>>

const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const

/** Strings that have broken parsers, validators, databases and log lines before. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t',
  '\r\n',
  'a\r\nX-Injected: 1',
  '\u0000',
  'a\u0000b',
  '\u007f',
  '\u0085',
  '\u2028\u2029',
  '\ufeff',
  '\u202eevil',
  'e\u0301',
  '🐶',
  '👩‍👩‍👧‍👦',
  '\ud800',
  '\udfff\ud800',
  '%',
  '%00',
  '%zz',
  '../..',
  '..',
  '.',
  '/',
  '\\',
  '?a=b#c',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE pets; --',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '-0',
  '0',
  '00',
  '1e309',
  '０１', // fullwidth digits
  '١٢', // Arabic-Indic digits
  '9'.repeat(30),
  '__proto__',
  'constructor',
  'prototype',
  'A'.repeat(301),
  'ǅ',
  'İstanbul',
  'ß',
  'xn--',
  'xn--zz',
]

/** A string of `length` code points, repeating a short unit: huge inputs without generating them char by char. */
function repeated(unit: fc.Arbitrary<string>, length: fc.Arbitrary<number>): fc.Arbitrary<string> {
  return fc.tuple(unit, length).map(([piece, n]) => {
    const points = [...(piece || 'a')]
    return Array.from({ length: n }, (_, i) => points[i % points.length]).join('')
  })
}

/** Any string: short ASCII, Unicode graphemes, any code point (lone surrogates and controls included), known troublemakers, huge. */
export function nastyString(maxHuge = 20_000): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
    { arbitrary: repeated(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }), fc.integer({ min: Math.min(256, maxHuge), max: maxHuge })), weight: 1 },
  )
}

/** Code points, as Ajv counts `minLength`/`maxLength` (a surrogate pair is one). */
function codePoints(value: string): number {
  return value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '_').length
}

function typeOf(value: unknown): (typeof JSON_TYPES)[number] {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value as 'boolean' | 'string' | 'object'
}

export class SchemaArbitraries {
  constructor(
    /** The OpenAPI document the `$ref`s point into. */
    private readonly doc: unknown,
    private readonly hints: Hints = {},
  ) {}

  /** Follows `$ref`s (`#/components/schemas/X`) and merges `allOf` into one schema. */
  resolve(schema: JsonSchema | undefined): JsonSchema {
    let current: JsonSchema = schema ?? {}
    for (let guard = 0; current.$ref !== undefined; guard++) {
      if (guard > 32) throw new Error(`$ref cycle at ${current.$ref}`)
      const ref = current.$ref
      if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`)
      let target: unknown = this.doc
      for (const part of ref.slice(2).split('/')) {
        target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
      }
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`)
      const rest = { ...current }
      delete rest.$ref
      current = { ...(target as JsonSchema), ...rest }
    }
    if (current.allOf) {
      const rest = { ...current }
      delete rest.allOf
      return current.allOf.map((part) => this.resolve(part)).reduce<JsonSchema>(
        (merged, part) => ({
          ...merged,
          ...part,
          properties: { ...merged.properties, ...part.properties },
          required: [...(merged.required ?? []), ...(part.required ?? [])],
        }),
        rest,
      )
    }
    return current
  }

  /** The JSON types a schema admits. */
  typesOf(schema: JsonSchema): Set<string> {
    const s = this.resolve(schema)
    const alternatives = s.anyOf ?? s.oneOf
    if (alternatives) return new Set(alternatives.flatMap((a) => [...this.typesOf(a)]))
    if (s.enum) return new Set(s.enum.map(typeOf))
    if (s.const !== undefined) return new Set([typeOf(s.const)])
    if (s.type) {
      const types = new Set([s.type].flat())
      if (types.has('number')) types.add('integer')
      return types
    }
    if (s.properties) return new Set(['object'])
    return new Set(JSON_TYPES)
  }

  /** Values the schema accepts, its edges drawn often; `name` picks hints for a property or parameter. */
  valid(schema: JsonSchema | undefined, name?: string, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema)
    const fromSchema = this.validOfSchema(s, depth)
    const hint = name === undefined ? undefined : this.hints[name]
    return hint ? fc.oneof({ arbitrary: hint, weight: 3 }, { arbitrary: fromSchema, weight: 2 }) : fromSchema
  }

  private validOfSchema(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    if (s.const !== undefined) return fc.constant(s.const)
    if (s.enum) return fc.constantFrom(...s.enum)
    const alternatives = s.anyOf ?? s.oneOf
    if (alternatives) return fc.oneof(...alternatives.map((a) => this.valid(a, undefined, depth + 1)))
    if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => this.validOfSchema({ ...s, type }, depth)))
    const type = s.type ?? (s.properties ? 'object' : undefined)
    switch (type) {
      case 'null':
        return fc.constant(null)
      case 'boolean':
        return fc.boolean()
      case 'integer':
        return integerIn(s)
      case 'number':
        return numberIn(s)
      case 'string':
        return stringIn(s)
      case 'array': {
        const minLength = s.minItems ?? 0
        const maxLength = s.maxItems ?? Math.max(minLength, 5)
        return fc.array(this.valid(s.items, undefined, depth + 1), { minLength, maxLength: Math.min(maxLength, minLength + 10) })
      }
      case 'object':
        return this.validObject(s, depth)
      default:
        return fc.jsonValue({ maxDepth: 2 })
    }
  }

  private validObject(s: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties = s.properties ?? {}
    const required = new Set(s.required ?? [])
    const record = fc.record(
      Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, this.valid(property, key, depth + 1)])),
      { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) },
    ) as fc.Arbitrary<Record<string, unknown>>
    if (s.additionalProperties === false || depth > 3) return record
    const extra = typeof s.additionalProperties === 'object' ? this.valid(s.additionalProperties, undefined, depth + 1) : fc.jsonValue({ maxDepth: 1 })
    return fc
      .tuple(record, fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(k in properties)), extra, { maxKeys: 2 }))
      .map(([known, more]) => ({ ...more, ...known }))
  }

  /** Values the schema refuses (most of them: an anyOf may happen to take one); each breaks one rule. */
  invalid(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema)
    const wrong: fc.WeightedArbitrary<unknown>[] = [{ arbitrary: this.wrongType(s), weight: 3 }]
    const add = (arbitrary: fc.Arbitrary<unknown>, weight = 2) => wrong.push({ arbitrary, weight })
    if (s.enum) {
      const members = s.enum.filter((m): m is string => typeof m === 'string')
      add(nastyString().filter((v) => !s.enum!.includes(v)))
      if (members.length > 0) add(fc.constantFrom(...members).chain((m) => fc.constantFrom(m.toUpperCase(), ` ${m}`, `${m} `, `${m}\n`, m.slice(0, -1), `${m},${m}`)))
    }
    const types = this.typesOf(s)
    if (types.has('integer') || types.has('number')) add(outOfRange(s), 3)
    if (types.has('string') && !s.enum) add(badString(s), 3)
    if (types.has('object') && s.properties) add(this.badObject(s, depth), 4)
    // The array itself, or the array alternative of an anyOf (a nullable list): its items and bounds.
    const array = s.type === 'array' ? s : (s.anyOf ?? s.oneOf)?.map((a) => this.resolve(a)).find((a) => a.type === 'array')
    if (array && depth < 4) {
      add(fc.array(this.invalid(array.items, depth + 1), { minLength: 1, maxLength: 3 }))
      if (array.maxItems !== undefined) add(fc.array(this.valid(array.items, undefined, depth + 1), { minLength: array.maxItems + 1, maxLength: array.maxItems + 3 }))
    }
    add(deeplyNested(), 1)
    return fc.oneof(...wrong)
  }

  /** A value of a JSON type the schema does not admit. */
  private wrongType(s: JsonSchema): fc.Arbitrary<unknown> {
    const allowed = this.typesOf(s)
    const candidates: fc.Arbitrary<unknown>[] = []
    if (!allowed.has('null')) candidates.push(fc.constant(null))
    if (!allowed.has('boolean')) candidates.push(fc.boolean())
    if (!allowed.has('integer')) candidates.push(fc.constantFrom(0, 1, -1, 42, 2 ** 53, -(2 ** 31)))
    if (!allowed.has('number')) candidates.push(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)))
    if (!allowed.has('string')) candidates.push(fc.oneof(nastyString(), fc.constantFrom('1', '12', '1.5', 'true', 'null', '[]', '{}')))
    if (!allowed.has('array')) candidates.push(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }))
    if (!allowed.has('object')) candidates.push(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }))
    return candidates.length > 0 ? fc.oneof(...candidates) : fc.constant(undefined)
  }

  /** An object that breaks one rule: a required field missing, an unknown field, a field invalid, or not an object at all. */
  private badObject(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const properties = Object.entries(s.properties ?? {})
    const full = fc.record(
      Object.fromEntries(properties.map(([key, property]) => [key, this.valid(property, key, depth + 1)])),
    ) as fc.Arbitrary<Record<string, unknown>>
    const ways: fc.Arbitrary<unknown>[] = [fc.constant({})]
    const required = s.required ?? []
    if (required.length > 0) {
      ways.push(fc.tuple(full, fc.constantFrom(...required)).map(([value, missing]) => omit(value, missing)))
    }
    if (s.additionalProperties === false) {
      const unknownKey = fc.oneof(fc.constantFrom('id', 'ID', 'Name', 'extra', '', ' ', 'name ', '\u0000', 'constructor', 'toString'), fc.string({ maxLength: 10 }))
      ways.push(fc.tuple(full, unknownKey.filter((k) => !(k in (s.properties ?? {}))), fc.jsonValue({ maxDepth: 2 })).map(([value, key, extra]) => ({ ...value, [key]: extra })))
    }
    if (properties.length > 0) {
      ways.push(
        fc
          .constantFrom(...properties)
          .chain(([key, property]) => fc.tuple(full, fc.constant(key), depth < 3 ? this.invalid(property, depth + 1) : this.wrongType(this.resolve(property))))
          .map(([value, key, bad]) => ({ ...value, [key]: bad })),
      )
    }
    return fc.oneof(...ways)
  }
}

function omit(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const rest = { ...value }
  delete rest[key]
  return rest
}

function bounds(s: JsonSchema, integer: boolean): { min: number; max: number } {
  const floor = integer ? Number.MIN_SAFE_INTEGER : -Number.MAX_VALUE
  const ceiling = integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE
  const step = integer ? 1 : Number.EPSILON
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + step : floor)
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - step : ceiling)
  return { min: integer ? Math.ceil(min) : min, max: integer ? Math.floor(max) : max }
}

/** Integers in range: the edges, small values (where fixtures' ids are) and anywhere in between. */
function integerIn(s: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = bounds(s, true)
  const edges = [...new Set([min, min + 1, max - 1, max, 0, 1, -1, 20, 100])].filter((v) => v >= min && v <= max)
  return fc.oneof(
    { arbitrary: fc.constantFrom(...edges), weight: 3 },
    { arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(Math.min(max, Math.max(min, 0) + 60)) }).map(Number), weight: 3 },
    { arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number), weight: 2 },
  )
}

function numberIn(s: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = bounds(s, false)
  return fc.oneof(
    fc.constantFrom(...[min, max, 0, 0.5].filter((v) => v >= min && v <= max)),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
  )
}

/** Numbers just out of range, not integers, too large for a double to hold exactly, or numeric text. */
function outOfRange(s: JsonSchema): fc.Arbitrary<unknown> {
  const { min, max } = bounds(s, s.type === 'integer')
  const values: unknown[] = [1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 64, -(2 ** 63), 0.5, -0.5, 1.5, 1e-7, -1]
  if (min > Number.MIN_SAFE_INTEGER) values.push(min - 1, min - 0.5)
  if (max < Number.MAX_SAFE_INTEGER) values.push(max + 1, max + 0.5)
  if (s.type === 'integer') values.push(min + 0.5)
  return fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values).map(String))
}

/** Strings at the edges of length, huge ones, and ones that break the pattern (control characters first). */
function stringIn(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date-time') {
    return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString())
  }
  if (s.format === 'email') return fc.emailAddress()
  const minLength = s.minLength ?? 0
  const maxLength = s.maxLength ?? Math.max(minLength, 100)
  const test = s.pattern === undefined ? undefined : new RegExp(s.pattern, 'u')
  const fits = (value: string) => {
    const n = codePoints(value)
    return n >= minLength && n <= maxLength && (test === undefined || test.test(value))
  }
  const edge = (length: number) =>
    fc.constantFrom('a', 'Z', 'é', '🐶', ' ', '-', '1').map((unit) => unit.repeat(length))
  const small = Math.min(maxLength, minLength + 16)
  const base: fc.Arbitrary<string>[] = test
    ? [fc.stringMatching(new RegExp(s.pattern!)), fc.stringMatching(new RegExp(s.pattern!))]
    : [fc.string({ minLength, maxLength: small }), fc.string({ unit: 'grapheme', minLength, maxLength: small })]
  return fc
    .oneof(
      { arbitrary: base[0]!, weight: 3 },
      { arbitrary: base[1]!, weight: 2 },
      { arbitrary: fc.constantFrom(minLength, maxLength).chain(edge), weight: 2 },
      { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 1 },
    )
    .filter(fits)
}

function badString(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0
  const ways: fc.Arbitrary<string>[] = [nastyString(200_000)]
  if (minLength > 0) ways.push(fc.constant('x'.repeat(minLength - 1)))
  if (s.maxLength !== undefined) {
    const over = s.maxLength + 1
    ways.push(fc.constantFrom('a', 'é', '🐶').map((unit) => unit.repeat(over)))
  }
  if (s.pattern !== undefined) {
    const test = new RegExp(s.pattern, 'u')
    ways.push(fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((v) => !test.test(v)))
    ways.push(fc.constantFrom('\r\n', 'a\nb', 'tab\there', 'nul\u0000', 'del\u007f', '\u001b[31m'))
  }
  return fc.oneof(...ways)
}

/** Arrays or objects nested far deeper than any schema: a stack or a validator may give up. */
function deeplyNested(): fc.Arbitrary<unknown> {
  return fc.integer({ min: 50, max: 3_000 }).map((depth) => {
    let value: unknown = 1
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value }
    return value
  })
}
