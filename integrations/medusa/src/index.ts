import { ModuleProvider, Modules } from '@medusajs/framework/utils';
import { GatewayPaymentProvider } from './service';

export { fromCents, toCents } from './amounts';
export { GatewayPaymentProvider, type GatewayProviderOptions, SESSION_KEY, statusOf } from './service';
export type { AddressInput, CustomerInput, GatewaySessionData, Method } from './session-data';

/** The payment module provider a shop lists in medusa-config.ts (`resolve: '@payment-gateway/medusa'`). */
export default ModuleProvider(Modules.PAYMENT, { services: [GatewayPaymentProvider] });
