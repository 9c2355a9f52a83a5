/**
 * Runs async steps one after another (a file follower reads from where its previous read
 * stopped: two reads at once would take the same lines twice). A failed step does not stop the
 * next.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step);
    this.tail = result.catch(() => {});
    return result;
  }
}
