export {
  bucketOf, bucketUrlOf, endpointOf, keyOf, objectStorageAccess, pathStyleOf, schemeOf, withoutCredentials, type ObjectStorageAccess,
} from './access.ts';
export { BucketClient, BucketError, type ListedObject } from './bucket-client.ts';
