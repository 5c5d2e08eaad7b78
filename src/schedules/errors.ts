import { ConflictError, NotFoundError } from '../errors.ts';

export class ScheduleNotFoundError extends NotFoundError {
  override readonly code = 'schedule_not_found';
  constructor(name: string) {
    super(`No schedule named "${name}"`);
  }
}

export class ScheduleInProgressError extends ConflictError {
  override readonly code = 'schedule_in_progress';
  constructor(name: string) {
    super(`The schedule "${name}" is already running`);
  }
}
