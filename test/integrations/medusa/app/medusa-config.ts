// The shop's configuration, as a Medusa v2 shop registers the gateway's payment provider. The test sets the
// environment (its own database, the gateway's URL and keys, the webhook's secret) before it starts Medusa.
import { defineConfig, loadEnv } from '@medusajs/framework/utils';

loadEnv(process.env.NODE_ENV || 'development', process.cwd());

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: process.env.STORE_CORS ?? 'http://localhost:8000',
      adminCors: process.env.ADMIN_CORS ?? 'http://localhost:9000',
      authCors: process.env.AUTH_CORS ?? 'http://localhost:9000',
      jwtSecret: process.env.JWT_SECRET ?? 'supersecret',
      cookieSecret: process.env.COOKIE_SECRET ?? 'supersecret',
    },
  },
  admin: { disable: true },
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [
          {
            // the provider's id is pp_gateway_gateway; its webhook URL /hooks/payment/gateway_gateway
            resolve: '@payment-gateway/medusa',
            id: 'gateway',
            options: {
              baseUrl: process.env.GATEWAY_URL,
              publicKey: process.env.GATEWAY_PUBLIC_KEY,
              privateKey: process.env.GATEWAY_PRIVATE_KEY,
              webhookSecret: process.env.GATEWAY_WEBHOOK_SECRET,
              // cards are authorized at checkout and captured when the shop captures the order
              capture: false,
            },
          },
        ],
      },
    },
  ],
});
