import { ConflictError, NotFoundError, QuarryError, UnauthenticatedError } from '../errors.ts';

export class InvalidCredentialsError extends UnauthenticatedError {
  override readonly code = 'invalid_credentials';
  constructor() {
    super('Invalid email or password');
  }
}

export class CsrfError extends QuarryError {
  readonly status = 403;
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
