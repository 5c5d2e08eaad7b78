export { bucketOf, objectStorageAccess, withoutCredentials, type ObjectStorageAccess } from './access.ts';
export { BucketClient, BucketError, type ListedObject } from './bucket-client.ts';
