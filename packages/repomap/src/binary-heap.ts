/**
 * A binary heap: `pop` returns the item that comes first by `before` (a max-heap when `before`
 * is "greater than"). The budget fitter keeps its upgrade candidates in one.
 */
export class BinaryHeap<T> {
  private readonly items: T[] = [];

  /** `before(a, b)` is true when `a` should leave the heap before `b`. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const xs = this.items;
    xs.push(item);
    let i = xs.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(xs[i]!, xs[p]!)) break;
      [xs[i], xs[p]] = [xs[p]!, xs[i]!];
      i = p;
    }
  }

  /** The item `pop` would return, left in place. */
  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const xs = this.items;
    const top = xs[0];
    const last = xs.pop();
    if (xs.length && last !== undefined) {
      xs[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < xs.length && this.before(xs[l]!, xs[m]!)) m = l;
        if (r < xs.length && this.before(xs[r]!, xs[m]!)) m = r;
        if (m === i) break;
        [xs[i], xs[m]] = [xs[m]!, xs[i]!];
        i = m;
      }
    }
    return top;
  }
}
