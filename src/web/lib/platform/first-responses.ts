/**
 * Answers to the first page's reads, asked for as the page starts (app/first-reads.ts), before the app's
 * code has loaded and run: on a slow phone that takes longer than the reads themselves (performance.md
 * W4). They wait here only until the first page's queries start (app/first-paint.ts, and an entity
 * page's loader: app/page-reads.ts): those queries' first reads take them (`Platform.account`,
 * `Platform.entityFiles`) instead of asking again, and the query cache holds the data from then on. Each answer is taken once, and what the first page did not
 * take is dropped, so no later read gets an old one.
 */
export class FirstResponses {
  #answers = new Map<string, Promise<Response | null>>();

  /** `answer` settles to null when the read could not be made: the app's call then asks itself. */
  put(url: string, answer: Promise<Response | null>): void {
    this.#answers.set(url, answer);
  }

  take(url: string): Promise<Response | null> | undefined {
    const answer = this.#answers.get(url);
    this.#answers.delete(url);
    return answer;
  }

  /** The first page has what it needs: answers nobody took are let go. */
  drop(): void {
    for (const answer of this.#answers.values())
      void answer.then((response) => response?.body?.cancel()).catch(() => undefined);
    this.#answers.clear();
  }
}
