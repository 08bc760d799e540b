import path from 'node:path';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The payer's hosted checkout page: static files the gateway serves itself (src/checkout/page.routes.ts), the
// HTML at /pay/<slug> and /checkout/<id> with the link's or session's data, the assets under /checkout-page/.
// Its second page, billing.html, is a subscriber's own page at /billing/<token> (src/subscriptions/billing.routes.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/checkout-page/',
  plugins: [preact()],
  build: {
    outDir: '../dist/checkout-page',
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    // one script and one stylesheet: a phone on a slow network waits for as few requests as possible
    modulePreload: false,
    rollupOptions: {
      input: {
        index: path.join(import.meta.dirname, 'index.html'),
        billing: path.join(import.meta.dirname, 'billing.html'),
      },
    },
  },
});
