import { restApiConnector } from '../rest/index.ts';
import { defineSourceType, RestApiSection } from '../type-definition/index.ts';

/** `rest_api`: any JSON API described in the section; the engine in ../rest reads it. */
export const restApiType = defineSourceType({
  key: 'rest_api', category: 'Local & Custom', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: RestApiSection,
  connector: restApiConnector,
});
