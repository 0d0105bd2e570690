/**
 * The import rules of src/ (docs/architecture.md explains the layers). Checked in CI by
 * `npm run lint:imports`; type-only imports count too. No rule has an exemption: where a lower
 * module needs something of a higher one, it receives it (a function or an object in its factory's
 * deps, a type it declares itself), and the composition root passes it in.
 *
 * Layers, lowest first; a module imports only its own layer or lower ones:
 *   foundation  config.ts (and its compiled validator), clock.ts, lazy.ts, errors.ts, secret-box.ts, shapes.ts, db/
 *   data        *.repository.ts: SQL, and nothing else
 *   domain      services, stores, schemas and pure modules of each feature, auth/, cache/, limits/, redis/, jobs/, ops/metrics.ts
 *   http        http/, openapi/, *.routes.ts, *.hook.ts, *.scope.ts, *.http.ts, *.listener.ts
 *   composition app.ts, *.module.ts (a factory, createXxx), admin/, v1/, web/
 *   process     server.ts, cli.ts, cli/, bootstrap.ts
 *
 * Across the layers, the shared folders (SHARED) never import a feature folder: every folder of
 * src/ that is not shared, composition, process or the client is a feature (accounts, audit,
 * categories, domains, idempotency, keys, locations, orders, pets, photos, projects, usage, webhooks), so a
 * new folder is a feature until it is named here.
 */
const FOUNDATION = '^src/(config|config-validator|clock|lazy|errors|secret-box|shapes)[.]ts$|^src/db/'
const HTTP = '^src/(http|openapi)/|[.](routes|hook|scope|http|listener)[.]ts$'
const COMPOSITION = '^src/app[.]ts$|[.]module[.]ts$|^src/(admin|v1|web)/'
const PROCESS = '^src/(server|cli|bootstrap)[.]ts$|^src/cli/'
const SHARED = `${FOUNDATION}|^src/(http|auth|limits|cache|redis|openapi|ops|jobs|storage)/`

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycle, of modules or of types.', from: {}, to: { circular: true } },
    {
      name: 'foundation-stays-low',
      severity: 'error',
      comment: 'Configuration, the clock, the error catalog and the database layer know no feature.',
      from: { path: FOUNDATION },
      to: { path: '^src/', pathNot: FOUNDATION },
    },
    {
      name: 'shared-knows-no-feature',
      severity: 'error',
      comment: 'The shared layers (http, auth, limits, cache, db, redis, errors, openapi, ops, …) import no feature: what they need of one, they are given.',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: SHARED },
    },
    {
      name: 'repositories-are-data-only',
      severity: 'error',
      comment: 'A repository runs SQL: it imports the database layer, row types and the shapes it returns, never a service or HTTP.',
      from: { path: '[.]repository[.]ts$' },
      to: { path: '^src/', pathNot: `${FOUNDATION}|[.]repository[.]ts$|[.]schemas[.]ts$` },
    },
    {
      name: 'domain-knows-no-http',
      severity: 'error',
      comment: 'Services, stores and auth rules do not reach up into routes, scopes, composition or processes.',
      from: { path: '^src/', pathNot: `${FOUNDATION}|${HTTP}|${COMPOSITION}|${PROCESS}|^src/client/` },
      to: { path: `${HTTP}|${COMPOSITION}|${PROCESS}` },
    },
    {
      name: 'http-below-composition',
      severity: 'error',
      comment: 'Routes, hooks and scopes are put together by the composition root, never the other way round.',
      from: { path: HTTP },
      to: { path: `${COMPOSITION}|${PROCESS}` },
    },
    {
      name: 'routes-are-leaves',
      severity: 'error',
      comment: 'Only the composition (app.ts, *.module.ts, the API scopes) registers routes.',
      from: { path: '^src/', pathNot: COMPOSITION },
      to: { path: '[.]routes[.]ts$' },
    },
    {
      name: 'process-on-top',
      severity: 'error',
      comment: 'Nothing in the service imports the processes that run it.',
      from: { path: '^src/', pathNot: PROCESS },
      to: { path: PROCESS },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'The typed client is published on its own: it imports nothing of the service.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'dashboard-through-the-api',
      severity: 'error',
      comment: 'The dashboard talks to the admin API over HTTP; it imports no server module.',
      from: { path: '^dashboard/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
}
