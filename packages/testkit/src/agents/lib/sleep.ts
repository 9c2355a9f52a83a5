export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Writes to stdout and waits for the PTY to take it (backpressure), so big answers stay bounded. */
export function write(data: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(data)) resolve();
    else process.stdout.once('drain', () => resolve());
  });
}
