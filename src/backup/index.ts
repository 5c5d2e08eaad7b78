export { BackupError } from './errors.ts';
export { restoreBackup, type RestoreSummary } from './restore-backup.ts';
export { takeBackup, type BackupOptions, type BackupSummary } from './take-backup.ts';
