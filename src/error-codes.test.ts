import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';
import { InvalidRequestError, QuarryError } from './errors.ts';

const entries = Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][];

describe('ERROR_CODES', () => {
  it('answers every code with an HTTP status that is an error: 4xx for the caller, 5xx for the server', () => {
    const notErrors = entries.filter(([, { status }]) => !(status >= 400 && status <= 599) || STATUS_CODES[status] === undefined);
    expect(notErrors).toEqual([]);
  });

  it('names every code in snake_case, the form clients match on', () => {
    expect(entries.map(([code]) => code).filter((code) => !/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(code))).toEqual([]);
  });

  it('says what every code means in one sentence, as error messages are written: no full stop inside or at the end', () => {
    const notOneSentence = entries.filter(([, { meaning }]) => meaning.trim() !== meaning || meaning.length < 10 || /[.!?](?:\s|$)|\n/.test(meaning));
    expect(notOneSentence).toEqual([]);
  });

  it('gives no two codes the same meaning: they would be one code a client has to handle twice', () => {
    const meanings = entries.map(([, { meaning }]) => meaning.toLowerCase());
    expect(meanings.filter((meaning, index) => meanings.indexOf(meaning) !== index)).toEqual([]);
  });
});

describe('QuarryError', () => {
  it('answers the status of the code the subclass names, set after the base constructor ran', () => {
    class Busy extends QuarryError {
      readonly code = 'platform_db_busy';
    }
    class Refused extends InvalidRequestError {
      override readonly code = 'query_not_allowed';
    }
    expect(new Busy('busy').status).toBe(ERROR_CODES.platform_db_busy.status);
    expect(new Refused('refused').status).toBe(ERROR_CODES.query_not_allowed.status);
    expect(new InvalidRequestError('bad').status).toBe(ERROR_CODES.invalid_request.status);
  });
});
