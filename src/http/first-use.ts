/**
 * Route schemas compile when first used, not at start-up. Fastify asks for a validator per route
 * and request part and a serializer per route and status as it starts: compiling them all was
 * most of a start-up's work (about half a second of CPU per instance and per command that builds
 * the app), mostly for requests and answers the instance may never see. Each compiles at its
 * first use instead, once per process; `compileEverySchema` compiles those still waiting, so a
 * check (the tests) finds a schema that does not compile without sending every request.
 */

/**
 * Those not compiled yet; each leaves the set as it compiles. One per distinct schema object: the
 * apps of a process share them, but for the few header schemas Fastify copies per app.
 */
const waiting = new Set<() => unknown>()

/** `compile`'s result, made at the first call of the returned function and kept. */
export function onFirstUse<T>(compile: () => T): () => T {
  let compiled: { value: T } | undefined
  const get = (): T => {
    if (compiled === undefined) {
      compiled = { value: compile() }
      waiting.delete(get)
    }
    return compiled.value
  }
  waiting.add(get)
  return get
}

/** Compiles every schema still waiting for its first use; throws what the first that fails throws. */
export function compileEverySchema(): void {
  for (const get of waiting) get()
}
