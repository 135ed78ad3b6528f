import { BusinessRuleError, ValidationError, type FieldError } from '@ledgerline/core/errors';

/**
 * Input that cannot be computed at all (non-finite number, precision out of range, missing fx rate…).
 * A 400 `validation_error` whose `errors[]` names each offending field path, e.g. `items[2].qty`.
 */
export class DocumentValidationError extends ValidationError {
  constructor(errors: FieldError[]) {
    super(
      errors.length === 1 ? `${errors[0].path}: ${errors[0].message}` : `${errors.length} document fields are invalid`,
      errors,
    );
  }
}

/**
 * Input with a valid shape that breaks a money rule (e.g. a fixed discount larger than the lines it is
 * spread across). A 422 with a stable `code`.
 */
export class DocumentRuleError extends BusinessRuleError {
  constructor(code: string, message: string, path?: string) {
    super(message, code, path ? [{ path, message, code }] : undefined);
  }
}

/** A numbering mask, counter or date that cannot produce a document number (400). */
export class NumberingError extends ValidationError {
  constructor(message: string, code: string, path: string) {
    super(message, [{ path, message, code }], code);
  }
}

/** A numbering mask that does not follow the mask grammar (400, code `invalid_numbering_mask`). */
export class InvalidMaskError extends NumberingError {
  constructor(
    readonly mask: string,
    reason: string,
  ) {
    super(`Invalid numbering mask ${JSON.stringify(mask)}: ${reason}`, 'invalid_numbering_mask', 'mask');
  }
}
