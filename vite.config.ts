import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const src = fileURLToPath(new URL('./src', import.meta.url))

// The SPA lives in src/web; the API server (src/server) serves the build from dist/web. Source maps are 'hidden':
// written for debugging, not referenced by the bundles, and not served in production (app.ts).
export default defineConfig({
  root: 'src/web',
  publicDir: 'public',
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': src } },
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: 'hidden',
    chunkSizeWarningLimit: 600,
    // Read by the server's prerenderer (which chunks a page preloads) and by bench/web-bytes.ts.
    manifest: true,
    // Every browser we support has modulepreload: no polyfill in the entry.
    modulePreload: { polyfill: false },
  },
  // The prerenderer's bundle (dist/ssr) takes in the icons it draws: left external, the server would load all of
  // lucide-react (1.3 MB of code, every icon's drawing, and an 8 MB source map under --enable-source-maps).
  ssr: { noExternal: ['lucide-react'] },
  server: {
    port: 5173,
    proxy: { '/api': { target: `http://127.0.0.1:${process.env.PORT ?? 3000}`, changeOrigin: false } },
  },
})
