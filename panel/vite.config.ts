import path from 'node:path';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The panel is built into static files that the gateway itself serves at `/` (no second server); the
// operators' console, on the same stack and components, is its second page, served at `/ops`.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  build: {
    outDir: '../dist/panel-site',
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        panel: path.join(import.meta.dirname, 'index.html'),
        console: path.join(import.meta.dirname, 'ops.html'),
      },
    },
  },
});
