import { afterEach } from 'vitest';
import { checkLiveLogs } from './log-watch.js';

// every test file: a gateway that logged a fault the test did not declare fails the test that was running
afterEach(() => checkLiveLogs());
