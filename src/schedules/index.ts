/** Schedules: cron-driven runs of ordinary sync jobs and the models downstream, with retries of transient failures. */
export { Scheduler, type SchedulerOptions, type ScheduleIncidents, type ScheduleStatus } from './scheduler.ts';
export { ScheduleNotFoundError, ScheduleInProgressError } from './errors.ts';
export { systemTimer, type Timer } from './timer.ts';
export { requesterOf } from './schedule-run.ts';
export { syncIntervalHours } from './sync-interval.ts';
export { DailyMaintenance, type DailyMaintenanceOptions } from './daily-maintenance.ts';
