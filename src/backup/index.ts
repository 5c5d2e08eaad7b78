export { BackupError } from './errors.ts';
export { restoreBackup, assertLakeFilesPresent, type RestoreSummary } from './restore-backup.ts';
export { takeBackup, type BackupOptions, type BackupSummary } from './take-backup.ts';
export { backupProjectToBucket, lakeBucketOf, restoreFromBucket, type BucketBackupSummary, type ProjectToBackUp } from './bucket-backups.ts';
