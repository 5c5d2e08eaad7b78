import { QuarryError } from '../errors.ts';

/** A mistake by the person at the terminal: printed as one line, exit code 1. */
export class CliError extends QuarryError {
  readonly status = 400;
  readonly code = 'cli_error';
}
