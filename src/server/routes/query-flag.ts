import { z } from 'zod';

/** A yes/no query parameter: true or 1, false or 0. */
export const QueryFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
