export * from './types.js';
export * from './errors.js';
export { computeDocument } from './document-math.js';
export { paymentStatus } from './payment-status.js';
export { allocateDiscount, type AllocationTarget, type DiscountRule } from './discount-allocation.js';
export {
  normalizeDocumentInput,
  type NormalizedDocument,
  type NormalizedItem,
  type NormalizedShippingCharge,
  type NormalizedDiscount,
  type NormalizedTax,
} from './document-input.js';
export * from './numbering.js';
export { assertCreditHeadroom, creditHeadroom, type CreditHeadroom } from './credit-limit.js';
export { assertDerivedFigures, derivedFigureMismatches, type SentFigures } from './strict-figures.js';
export * from './payment-qr.js';
export { roundingToIncrement, incrementProblem, MAX_ROUNDING_INCREMENT, MAX_ROUNDING_AMOUNT } from './rounding.js';
