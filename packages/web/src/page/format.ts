/** "12s", "5m", "3h", "2d": how long ago, coarse enough to read at a glance. */
export function age(sinceMs: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - sinceMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A turn's duration: "850 ms", "12.3 s", "4m 05s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

export function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}

/** Creates an element with a class and text (text is never parsed as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
