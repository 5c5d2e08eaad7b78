import type { Paginator } from './paginators.ts';
import { valueAt } from './json-path.ts';

/** Pages by copying the response's next cursor into a field of the JSON body, as POST search and query APIs do. */
export function bodyCursor(cursorPath: string, field: string): Paginator {
  return {
    next(request, response) {
      const cursor = valueAt(response.body, cursorPath);
      if ((typeof cursor !== 'string' || cursor === '') && typeof cursor !== 'number') return undefined;
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      return { ...request, url: new URL(request.url), headers: { ...request.headers }, body: { ...body, [field]: cursor } };
    },
  };
}
