// The onboarding module's front door: self sign-up and the documents an account sends for review.
export { currentDocuments, documentContent } from './documents.data.js';
export { Onboarding } from './onboarding.js';
export { onboardingRoutes } from './routes.js';
