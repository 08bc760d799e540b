// The review queue's front door: onboarding and risk reviews an operator decides.
export {
  accountReviews,
  closeReview,
  findReview,
  lockOpenReview,
  openAccountRiskReviewOf,
  openOnboardingReviewOf,
  openReview,
  openReviewOfSale,
  openReviews,
  type ReviewKind,
  type ReviewRow,
  type ReviewView,
  reviewView,
} from './data.js';
