export { bucketOf, bucketUrlOf, keyOf, objectStorageAccess, schemeOf, withoutCredentials, type ObjectStorageAccess } from './access.ts';
export { BucketClient, BucketError, type ListedObject } from './bucket-client.ts';
