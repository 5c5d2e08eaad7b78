import type { HttpRequest, HttpResponse } from './http-client.ts';
import type { Paginator } from './paginators.ts';

/** What makes two requests the same page: where they go and what they send. */
export function pageKey(request: HttpRequest): string {
  return `${request.url.href} ${JSON.stringify(request.body ?? null)}`;
}

/**
 * Fetches the pages a paginator can tell in advance while the current one is being written, keeping at most
 * `concurrency` requests of one resource in flight (1: page by page, nothing ahead). A page fetched ahead is used
 * only when the paginator then asks for exactly that request; otherwise the guesses are dropped and the asked-for
 * page is fetched.
 */
export class PagesAhead {
  readonly #send: (request: HttpRequest) => Promise<HttpResponse>;
  readonly #paginator: Paginator;
  readonly #depth: number;
  /** The requests after the current page's, in order, with their responses on the way. */
  #queue: { key: string; response: Promise<HttpResponse> }[] = [];

  constructor(send: (request: HttpRequest) => Promise<HttpResponse>, paginator: Paginator, concurrency: number) {
    this.#send = send;
    this.#paginator = paginator;
    // While a page is written, every request in flight is one ahead of it.
    this.#depth = concurrency > 1 ? concurrency : 0;
  }

  /** The response to `request`: the one fetched ahead when it was guessed right, else a new request. */
  fetch(request: HttpRequest): Promise<HttpResponse> {
    const head = this.#queue.shift();
    if (head !== undefined && head.key === pageKey(request)) return head.response;
    this.#queue = [];
    return this.#send(request);
  }

  /** Starts the pages after `request`, whose answer was `response`, up to the concurrency. */
  fetchAfter(request: HttpRequest, response: HttpResponse, records: readonly unknown[]): void {
    if (this.#paginator.ahead === undefined) return;
    while (this.#queue.length < this.#depth) {
      const guess = this.#paginator.ahead(request, response, records, this.#queue.length + 1);
      if (guess === undefined) return;
      const answer = this.#send(guess);
      // A page fetched ahead and never used must not fail the sync; one that is used fails where it is awaited.
      answer.catch(() => undefined);
      this.#queue.push({ key: pageKey(guess), response: answer });
    }
  }
}
