import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * The web dashboard: built into dist/dashboard/ and served by the service at /dashboard
 * (src/web/dashboard.scope.ts). `npm run dashboard:dev` serves it with hot reload and sends
 * /admin to a service running on port 8080 (or DASHBOARD_API).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  // Preact's JSX, compiled by esbuild: no Babel, no plugin.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // One entry chunk: no preload helper needed. Nothing is inlined as data: URLs either.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    rollupOptions: {
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
  server: {
    proxy: { '/admin': process.env.DASHBOARD_API ?? 'http://127.0.0.1:8080' },
  },
})
