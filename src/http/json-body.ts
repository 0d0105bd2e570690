import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import sjson from 'secure-json-parse'
import { ApiError } from '../errors.js'
import { named } from './plugin-name.js'
import { MAX_JSON_DEPTH, nestedDeeperThan } from './request-limits.js'

/**
 * The JSON body parser, with messages a client can act on. `__proto__` and
 * `constructor.prototype` keys are refused: they would poison objects built from the body.
 * Bodies nested deeper than MAX_JSON_DEPTH are refused before they are parsed.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
}

/**
 * JSON Merge Patch (RFC 7396) bodies, for the scope of the operations that take them: parsed as
 * JSON is, the operation's schema says what they may hold.
 */
export const MERGE_PATCH = 'application/merge-patch+json'

/** Registers the routes that take JSON Merge Patch bodies, in a scope of their own that parses them. */
export async function withMergePatch(app: TypeBoxScope, routes: (scope: TypeBoxScope) => void): Promise<void> {
  await app.register(
    named(async (scope) => {
      scope.addContentTypeParser(MERGE_PATCH, { parseAs: 'string' }, parseJson)
      routes(scope.withTypeProvider<TypeBoxTypeProvider>())
    }, 'merge patch'),
  )
}

/** A scope whose routes are typed by their TypeBox schemas. */
type TypeBoxScope = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

function parseJson(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void {
  const text = body as string
  if (text.trim() === '') return done(new ApiError('invalid_request', 'The body is empty: send a JSON object.'), undefined)
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    return done(new ApiError('invalid_request', `The body cannot be parsed: it nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`), undefined)
  }
  try {
    done(null, sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }))
  } catch (error) {
    const reason =
      error instanceof SyntaxError && /prototype/.test(error.message)
        ? 'it contains a forbidden "__proto__" or "constructor.prototype" key'
        : `it is not valid JSON (${error instanceof Error ? error.message : 'syntax error'})`
    done(new ApiError('invalid_request', `The body cannot be parsed: ${reason}.`), undefined)
  }
}
