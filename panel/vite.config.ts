import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The panel is built into static files that the gateway itself serves at `/` (no second server).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  build: { outDir: '../dist/panel-site', emptyOutDir: true, sourcemap: false, assetsInlineLimit: 0 },
});
