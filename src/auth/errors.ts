import { ConflictError, NotFoundError, QuarryError, UnauthenticatedError } from '../errors.ts';

export class InvalidCredentialsError extends UnauthenticatedError {
  override readonly code = 'invalid_credentials';
  constructor() {
    super('Invalid email or password');
  }
}

export class CsrfError extends QuarryError {
  readonly code = 'csrf_failed';
  constructor() {
    super('Cross-site request refused: send the X-Requested-With: XMLHttpRequest header or a same-origin Origin header');
  }
}

export class UserExistsError extends ConflictError {
  override readonly code = 'user_exists';
  constructor(email: string) {
    super(`A user with the email ${email} already exists`);
  }
}

export class UserNotFoundError extends NotFoundError {
  override readonly code = 'user_not_found';
  constructor(email: string) {
    super(`No user with the email ${email}`);
  }
}

export class TwoFactorNotPendingError extends ConflictError {
  override readonly code = 'two_factor_not_pending';
  constructor() {
    super('This session has no two-factor step pending: it is signed in already');
  }
}

/** The partial session ended at its last allowed wrong code; the password step is due again. */
export class TwoFactorAttemptsExhaustedError extends UnauthenticatedError {
  override readonly code = 'two_factor_attempts_exhausted';
  constructor(attempts: number) {
    super(`${String(attempts)} wrong two-factor codes: this login has ended; log in again with your password`);
  }
}
