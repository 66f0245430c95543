// Builds the browser app into web/dist, which the tend server serves itself
// (src/server/http/static-files.ts): no dev server is needed to use it.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const webDir = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: webDir,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed names under assets/ are what the server caches for a year.
    assetsDir: 'assets',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npx vite --config web/vite.config.ts` for work on the page: /v1 goes to a
    // server's loopback port (TEND_PORT, default 7788).
    proxy: {
      '/v1': { target: `http://127.0.0.1:${process.env.TEND_PORT ?? '7788'}`, ws: true },
    },
  },
});
