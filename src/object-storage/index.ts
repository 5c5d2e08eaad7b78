export {
  bucketOf, bucketUrlOf, endpointOf, keyOf, objectStorageAccess, pathStyleOf, schemeOf, withoutCredentials, type ObjectStorageAccess,
} from './access.ts';
export { BucketClient } from './bucket-client.ts';
export { AzureContainerClient, azureHostOf } from './azure-container-client.ts';
export { BucketError, type ListedObject, type ObjectLister } from './object-lister.ts';
