/**
 * Requests for contract fuzzing, drawn from an OpenAPI document: for each operation, its path
 * parameters, query string, header parameters and JSON body come from the schemas (see
 * schema-arbitraries.ts), valid or not, with odd headers, content types and raw bodies mixed in.
 * How the request is authenticated is drawn as a descriptor (`Auth`) and turned into headers when
 * it is sent, since sessions come and go during a run.
 */
import fc from 'fast-check'
import { type JsonSchema, NASTY_STRINGS, nastyString, type SchemaArbitraries } from './schema-arbitraries.js'

export type Api = 'public' | 'admin'

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: JsonSchema
}

export interface OperationModel {
  api: Api
  /** The prefix of the document's paths: its server URL. */
  prefix: string
  method: string
  /** As in the document, with `{param}`s. */
  path: string
  operationId: string
  parameters: Parameter[]
  body?: { required: boolean; schema: JsonSchema }
  /** The documented statuses. */
  statuses: string[]
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { operationId: string; parameters?: Parameter[]; requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }; responses: Record<string, unknown> }>
  >
}

/** How fast-check prints a drawn request in its report: the payload clipped, bytes as hex. */
export function withShortPrint(request: DrawnRequest): DrawnRequest {
  const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`)
  const payload = request.payload === undefined ? undefined : Buffer.isBuffer(request.payload) ? `<bytes ${clip(request.payload.toString('hex'), 200)}>` : clip(request.payload, 300)
  const shown = { ...request, url: clip(request.url, 500), ...(payload !== undefined && { payload }) }
  return Object.assign(request, { [fc.toStringMethod]: () => JSON.stringify(shown) })
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Every operation of a document. */
export function operationsOf(doc: unknown, api: Api, prefix: string): OperationModel[] {
  return Object.entries((doc as OpenApiDocument).paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => {
        const json = operation.requestBody?.content['application/json']
        return {
          api,
          prefix,
          method: method.toUpperCase(),
          path,
          operationId: operation.operationId,
          parameters: operation.parameters ?? [],
          statuses: Object.keys(operation.responses),
          ...(json && { body: { required: operation.requestBody?.required ?? false, schema: json.schema } }),
        }
      }),
  )
}

/** Who a request claims to be; turned into headers when it is sent. */
export type Auth =
  | { kind: 'key' }
  | { kind: 'admin-token' }
  | { kind: 'session'; role: 'operator' | 'owner'; csrf: 'own' | 'none' | 'wrong' | 'empty' }
  | { kind: 'none' }
  /** A literal Authorization header (wrong scheme, wrong token, junk). */
  | { kind: 'authorization'; value: string }
  /** A literal Cookie header (unknown session, junk). */
  | { kind: 'cookie'; value: string }

/** A drawn request, before authentication is added. */
export interface DrawnRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  auth: Auth
  remoteAddress: string
  /** How it was drawn, for the failure message. */
  note: string
}

export interface RequestOptions {
  /** Keys and tokens that are well-formed but refused: another environment's key, a revoked one. */
  refusedCredentials: readonly string[]
  /** The largest body the app accepts: some bodies are drawn just over it. */
  bodyLimit: number
  /** The client address of every request of this operation; default: drawn. */
  remoteAddress?: string
}

const JSON_CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'] as const
const ODD_CONTENT_TYPES = [
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset="utf-8"',
  'application/json; boundary=x; charset=utf-8; q=1',
  'application/json;',
  ' application/json ',
  'application/json, text/plain',
  'application/jsonx',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/problem+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'multipart/form-data; boundary=----fuzz',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/xml',
  'application/octet-stream',
  '*/*',
  'json',
  '',
  ';',
  '/',
] as const

/** Bodies a JSON schema does not describe: broken JSON, not an object, poisoned keys, deep nesting, odd bytes. */
function rawBody(bodyLimit: number): fc.Arbitrary<string | Buffer> {
  const nested = fc
    .tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.boolean())
    .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`))
  return fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '\r\n',
      'null',
      'true',
      '0',
      '"text"',
      '[]',
      '[{}]',
      '{',
      '}',
      '{"a":}',
      '{"name":"x",}',
      "{'name':'x'}",
      '{"name":"x"}garbage',
      '{"name":"x"}{"name":"y"}',
      '\ufeff{}',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
      '{"a":1,"a":2}',
      '{"name":"Rex","categoryId":1,"name":5}',
      '{"petId":1,"petId":"1"}',
      '{"x":1e999}',
      '{"x":-1e999}',
      'NaN',
      '{"x":NaN}',
      '{"x":0x10}',
      '{"x":01}',
      '{"x":"\\ud800"}',
      '{"x":"\\u0000"}',
      '{"x":"\u0000"}',
      '{"x":"a\nb"}',
      '\u0000',
      'undefined',
    ),
    nested,
    // Just under and just over the size limit: a long string in an otherwise fine object.
    fc.integer({ min: -64, max: 64 }).map((delta) => `{"name":"${'n'.repeat(Math.max(0, bodyLimit - 11 + delta))}"}`),
    // Bytes that are not UTF-8.
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')])),
    fc.constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])),
    fc.string({ unit: 'binary', maxLength: 200 }),
  )
}

/**
 * A header value as it can arrive over HTTP: tab, printable ASCII and bytes 0x80-0xFF (read as
 * latin1 by Node). CR, LF and NUL are refused by Node's parser before the app sees a request, so
 * drawing them here would only test `inject`.
 */
function headerValue(maxLength = 80): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 8 },
    { arbitrary: fc.integer({ min: 0x80, max: 0xff }), weight: 1 },
    { arbitrary: fc.constant(0x09), weight: 1 },
  )
  return fc.array(unit, { maxLength }).map((codes) => String.fromCharCode(...codes))
}

const asHeader = (value: string) => [...value].filter((c) => c === '\t' || (c >= ' ' && c !== '\u007f' && c <= '\u00ff')).join('')

/** Text for a URL (a path segment or a query value) from a schema: its values written out, or text it refuses. */
function text(schemas: SchemaArbitraries, schema: JsonSchema | undefined, name: string, valid: boolean): fc.Arbitrary<string> {
  const written = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value) ?? '')
  if (valid) return schemas.valid(schema, name).map(written)
  const numeric = schemas.typesOf(schema ?? {}).has('integer')
    ? [fc.constantFrom('1.0', '01', '+1', '-1', '1e3', '0x10', '0b1', ' 1', '1 ', '1_000', '١', '１', '9'.repeat(17), '9'.repeat(25), '-0', '0', '', 'Infinity')]
    : []
  return fc.oneof(schemas.invalid(schema).map(written), nastyString(4_000), ...numeric)
}

function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    // A lone surrogate: written as the bytes of U+FFFD, as a browser would.
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd'))
  }
}

/** `?a=1&b=2`; a raw pair is written as drawn (its name holds the whole text): `%`, `&`, `=` and `#` then mean what they mean in a URL. */
function queryString(pairs: readonly [string, string, boolean][]): string {
  const parts = pairs.map(([name, value, raw]) => (raw ? name : `${encodeSegment(name)}=${encodeSegment(value)}`))
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

/** The drawn requests of one operation. */
export function requestsFor(operation: OperationModel, schemas: SchemaArbitraries, options: RequestOptions): fc.Arbitrary<DrawnRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path')
  const queryParameters = operation.parameters.filter((p) => p.in === 'query')
  const headerParameters = operation.parameters.filter((p) => p.in === 'header')

  const path = fc
    .tuple(
      ...pathParameters.map((p) =>
        fc.oneof({ arbitrary: text(schemas, p.schema, p.name, true), weight: 7 }, { arbitrary: text(schemas, p.schema, p.name, false), weight: 3 }).map((value) => [p.name, value] as const),
      ),
    )
    .map((values) => {
      const byName = new Map(values)
      return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeSegment(byName.get(name) ?? ''))
    })

  const documentedQuery = fc
    .tuple(
      ...queryParameters.map((p) =>
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: p.required ? 1 : 4 },
          { arbitrary: text(schemas, p.schema, p.name, true), weight: p.required ? 8 : 4 },
          { arbitrary: text(schemas, p.schema, p.name, false), weight: 2 },
        ).map((value) => (value === undefined ? [] : [[p.name, value, false] as [string, string, boolean]])),
      ),
    )
    .map((lists) => lists.flat())
  const extraQuery = fc.oneof(
    { arbitrary: fc.constant<[string, string, boolean][]>([]), weight: 8 },
    // An unknown parameter.
    { arbitrary: fc.tuple(fc.oneof(fc.constantFrom('page', 'offset', 'id', 'LIMIT', 'Status', ''), fc.string({ maxLength: 8 })), nastyString(200)).map(([n, v]) => [[n, v, false] as [string, string, boolean]]), weight: 1 },
    // A documented one twice (`?limit=1&limit=2` arrives as an array).
    ...(queryParameters.length > 0
      ? [{ arbitrary: fc.tuple(fc.constantFrom(...queryParameters.map((p) => p.name)), fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([n, a, b]) => [[n, a, false], [n, b, false]] as [string, string, boolean][]), weight: 1 }]
      : []),
    // Query syntax at its edges.
    { arbitrary: fc.constantFrom('', '=', '&', '&&', '=x', 'limit', 'limit[]=1', 'limit[a]=1', 'a=%', 'a=%zz', 'a=%E0%A4%A', 'a=b=c', 'a=1#frag', 'a+b=c+d', '%00=1').map((raw) => [[raw, '', true] as [string, string, boolean]]), weight: 1 },
  )
  const query = fc.tuple(documentedQuery, extraQuery).map(([documented, extra]) => queryString([...documented, ...extra]))

  const documentedHeaders = fc
    .tuple(
      ...headerParameters.map((p) =>
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 5 },
          { arbitrary: text(schemas, p.schema, p.name, true), weight: 4 },
          { arbitrary: fc.oneof(text(schemas, p.schema, p.name, false), headerValue(300)), weight: 2 },
        ).map((value) => (value === undefined ? {} : { [p.name]: asHeader(value) })),
      ),
    )
    .map((objects) => Object.assign({}, ...objects) as Record<string, string>)
  // Framing headers (Content-Length, Transfer-Encoding) are left out: `inject` frames no bytes,
  // so they would only test it, not the service.
  const oddHeaders = fc.oneof(
    { arbitrary: fc.constant({}), weight: 6 },
    {
      arbitrary: fc.dictionary(
        fc.constantFrom('x-request-id', 'accept', 'accept-encoding', 'accept-language', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded', 'origin', 'referer', 'user-agent', 'if-none-match', 'range', 'expect', 'x-csrf-token', 'x-http-method-override', 'idempotency-key', 'host'),
        fc.oneof(headerValue(), fc.constantFrom('', 'application/xml', '*/*', 'gzip, br', '100-continue', 'bytes=0-1', '127.0.0.1, ::1', 'https', 'localhost', 'LOCALHOST', '127.0.0.1', '[::1]:8080', 'localhost.', 'null')),
        { maxKeys: 3 },
      ),
      weight: 2,
    },
  )

  const body = operation.body
  const jsonBody = (schema: JsonSchema) =>
    fc.oneof(
      { arbitrary: schemas.valid(schema).map((v) => ({ payload: JSON.stringify(v), note: 'a valid body' })), weight: 5 },
      { arbitrary: schemas.invalid(schema).map((v) => ({ payload: JSON.stringify(v) ?? '', note: 'an invalid body' })), weight: 4 },
      { arbitrary: rawBody(options.bodyLimit).map((payload) => ({ payload, note: 'a raw body' })), weight: 2 },
    )
  const payloadAndType = body
    ? fc.oneof(
        { arbitrary: fc.tuple(jsonBody(body.schema), fc.constantFrom(...JSON_CONTENT_TYPES)), weight: 10 },
        { arbitrary: fc.tuple(jsonBody(body.schema), fc.oneof(fc.constantFrom(...ODD_CONTENT_TYPES), headerValue(40))), weight: 2 },
        { arbitrary: fc.tuple(jsonBody(body.schema), fc.constant(undefined)), weight: 1 },
        { arbitrary: fc.tuple(fc.constant({ payload: undefined, note: 'no body' }), fc.constantFrom(undefined, 'application/json')), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: fc.tuple(fc.constant({ payload: undefined, note: 'no body' }), fc.constant(undefined)), weight: 12 },
        { arbitrary: fc.tuple(fc.constant({ payload: undefined, note: 'no body' }), fc.constantFrom(...JSON_CONTENT_TYPES, 'text/plain')), weight: 1 },
        {
          arbitrary: fc.tuple(
            fc.oneof(fc.jsonValue({ maxDepth: 2 }).map((v) => ({ payload: JSON.stringify(v), note: 'an unexpected body' })), rawBody(options.bodyLimit).map((payload) => ({ payload, note: 'an unexpected raw body' }))),
            fc.oneof(fc.constantFrom(...JSON_CONTENT_TYPES), fc.constantFrom(...ODD_CONTENT_TYPES), fc.constant(undefined)),
          ),
          weight: 2,
        },
      )

  return fc
    .record({
      path,
      query,
      documentedHeaders,
      oddHeaders,
      body: payloadAndType,
      auth: authFor(operation.api, options.refusedCredentials),
      // Mostly addresses of their own: calls without a valid key are limited per address, and
      // should reach authentication more often than the limit.
      remoteAddress: options.remoteAddress === undefined ? fc.oneof({ arbitrary: fc.constant('127.0.0.1'), weight: 1 }, { arbitrary: fc.ipV4(), weight: 4 }) : fc.constant(options.remoteAddress),
    })
    .map(({ path, query, documentedHeaders, oddHeaders, body: [{ payload, note }, contentType], auth, remoteAddress }) => {
      const headers: Record<string, string> = { ...oddHeaders, ...documentedHeaders }
      if (contentType !== undefined) headers['content-type'] = asHeader(contentType)
      else delete headers['content-type']
      return withShortPrint({
        method: operation.method,
        url: `${operation.prefix}${path}${query}`,
        headers,
        ...(payload !== undefined && { payload }),
        auth,
        remoteAddress,
        note: `${operation.operationId}: ${note}`,
      })
    })
}

/** Mostly the right credentials for the API; sometimes none, refused ones or junk. */
function authFor(api: Api, refused: readonly string[]): fc.Arbitrary<Auth> {
  const junk = fc.oneof(
    fc.constantFrom('Bearer', 'Bearer ', 'bearer x', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearer a b', 'Bearer\tx', '  Bearer  x  ', 'Bearer as_live_', 'Bearer as_test_'),
    headerValue(120),
    fc.string({ maxLength: 60 }).map((v) => asHeader(`Bearer ${v}`)),
    ...(refused.length > 0 ? [fc.constantFrom(...refused).map((v) => `Bearer ${v}`)] : []),
  )
  const refusedOrJunk: fc.WeightedArbitrary<Auth>[] = [
    { arbitrary: fc.constant({ kind: 'none' }), weight: 1 },
    { arbitrary: junk.map((value) => ({ kind: 'authorization', value })), weight: 1 },
  ]
  if (api === 'public') return fc.oneof({ arbitrary: fc.constant({ kind: 'key' } as const), weight: 8 }, ...refusedOrJunk)
  const cookie = fc
    .oneof(fc.constant(`adoption_session=${'x'.repeat(43)}`), fc.constant('adoption_session='), headerValue(100), fc.constantFrom(...NASTY_STRINGS.slice(0, 20)).map((v) => `adoption_session=${asHeader(v)}`))
    .map((value) => ({ kind: 'cookie', value }) as const)
  return fc.oneof(
    { arbitrary: fc.constant({ kind: 'admin-token' } as const), weight: 6 },
    {
      arbitrary: fc.record({
        kind: fc.constant('session' as const),
        role: fc.constantFrom('operator' as const, 'owner' as const),
        csrf: fc.oneof({ arbitrary: fc.constant('own' as const), weight: 4 }, fc.constantFrom('none' as const, 'wrong' as const, 'empty' as const)),
      }),
      weight: 3,
    },
    { arbitrary: cookie, weight: 1 },
    ...refusedOrJunk,
  )
}

/** Requests that match no operation: other methods on documented paths, unknown and mangled paths. */
export function strayRequests(operations: readonly OperationModel[], schemas: { public: SchemaArbitraries; admin: SchemaArbitraries }, options: RequestOptions): fc.Arbitrary<DrawnRequest> {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'SEARCH'] as const
  const documented = fc.oneof(
    ...operations.map((operation) =>
      fc
        .tuple(
          requestsFor(operation, schemas[operation.api], options),
          fc.constantFrom(...methods.filter((m) => !operations.some((o) => o.path === operation.path && o.prefix === operation.prefix && o.method === m))),
        )
        .map(([request, method]) => withShortPrint({ ...request, method, note: `${operation.operationId} with ${method}` })),
    ),
  )
  const mangle = (url: string) =>
    fc.constantFrom<(u: string) => string>(
      (u) => u.toUpperCase(),
      (u) => `${u}/`,
      (u) => u.replace(/\//g, '//'),
      (u) => `${u}/extra`,
      (u) => u.replace('/v1', '/v2'),
      (u) => u.replace(/^\/(admin\/)?v1/, ''),
      (u) => `${u}%2F..%2F`,
      (u) => `${u};jsessionid=1`,
      (u) => `${u}/%`,
      (u) => `${u}/%zz`,
      (u) => `${u}/%E0%A4%A`,
      (u) => `${u}/${'a'.repeat(200)}`,
      (u) => u.replace(/\/[^/]*$/, '/.%2e'),
    ).map((f) => f(url))
  const fixed = fc.constantFrom('/', '/v1', '/v1/', '/admin', '/admin/v1', '/admin/v1/', '/v1/openapi.json/', '/admin/v1/openapi.json/x', '/v1/pets/1/2', '/v1/store', '/admin/v1/projects/x/y/z/w', '/health/x', '/metrics/x', '/favicon.ico', '/.env', '/v1/%00', '/admin/v1/projects/%00')
  const unknown = fc
    .tuple(fc.oneof(fixed, fc.constantFrom(...operations).chain((o) => mangle(`${o.prefix}${o.path.replace(/\{[^}]+\}/g, '1')}`))), fc.constantFrom(...methods), fc.oneof(authFor('public', options.refusedCredentials), authFor('admin', options.refusedCredentials)))
    .map(([url, method, auth]) => withShortPrint({ method, url, headers: {}, auth, remoteAddress: '127.0.0.1', note: 'an unknown route' }))
  return fc.oneof(documented, unknown)
}
