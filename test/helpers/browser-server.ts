/**
 * One Chromium for every browser test file of a run: `scripts/run-tests.ts` starts this, reads the
 * WebSocket endpoint it prints (one line), passes it on as TEST_BROWSER_ENDPOINT, and ends it
 * with SIGTERM. Launching Chromium costs seconds; each file then only opens contexts of its own.
 */
import { chromium, CHROMIUM_OPTIONS } from './browser.js'

const server = await chromium.launchServer(CHROMIUM_OPTIONS)
process.stdout.write(`${server.wsEndpoint()}\n`)
const stop = () => void server.close().finally(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
