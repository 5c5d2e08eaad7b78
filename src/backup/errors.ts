import { InvalidRequestError } from '../errors.ts';

/** A backup or restore that cannot be made as asked: nothing was written where it was going. */
export class BackupError extends InvalidRequestError {
  override readonly code = 'backup_failed';
}
