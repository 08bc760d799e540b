// The customers module's front door: a merchant's customers and the cards saved on file for them.
export { Customers } from './customers.js';
export { type CustomerRow, customersById, findCustomer } from './data.js';
export { customerPanelRoutes } from './panel.routes.js';
export { customerRoutes } from './routes.js';
