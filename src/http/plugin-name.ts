const DISPLAY_NAME = Symbol.for('fastify.display-name')

/**
 * `plugin` with its name for Fastify (its plugin tree, its boot errors): `name`, else the
 * function's own, the one Fastify would have found. A plugin Fastify has no name for, it looks for
 * among the exports of every CommonJS module loaded (several hundred, the S3 client's among them),
 * twice at each registration: about 6 % of the CPU of building an app.
 */
export function named<P extends object>(plugin: P, name?: string): P {
  const target = plugin as P & { [DISPLAY_NAME]?: string }
  target[DISPLAY_NAME] ||= name || (plugin as { name?: string }).name || 'plugin'
  return plugin
}
