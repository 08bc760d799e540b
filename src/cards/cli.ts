// What `gateway trigger` needs of this module (the check digit of the sandbox card numbers it makes) without
// loading the rest of it.
export { luhnValid } from './card-checks.js';
