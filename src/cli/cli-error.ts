/**
 * A mistake by the person at the terminal: printed as one line, exit code 1. Not a QuarryError: it never
 * reaches the API, so it has no HTTP status and no code in ERROR_CODES, whose every code a client may get.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
}
