/** A card's box in the grid's coordinates. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A quadratic curve: start, control point, end; and where its label goes. */
export interface Curve {
  x1: number;
  y1: number;
  cx: number;
  cy: number;
  x2: number;
  y2: number;
  labelX: number;
  labelY: number;
  /**
   * How the label's text sits on (labelX, labelY), as SVG's `text-anchor`: centred over an arc,
   * or starting beside a line that runs up or down (where a centred label would cover the line
   * and, between stacked cards, the arrowhead).
   */
  labelAnchor: 'middle' | 'start';
  /** The arrowhead at (x2, y2), along the curve's end: an SVG polygon's `points`. */
  head: string;
}

/** How far an arc between two cards of one row rises above (or dips below) them, at least. */
const ARC_LIFT_PX = 28;
/** Arrowhead length and half-width: visible at a glance, smaller than a line of text. */
const HEAD_LENGTH_PX = 10;
const HEAD_HALF_WIDTH_PX = 5;
/** Room between a line running up or down and the label beside it: clear of the arrowhead. */
const LABEL_SIDE_GAP_PX = 9;
/** Half the label's height (11 px text): what centres it on a point beside a line. */
const LABEL_HALF_HEIGHT_PX = 4;

/**
 * The arrow from card `a` to card `b`, leaving and entering at their borders so the arrowhead
 * points at the target instead of lying on its text. Cards side by side in one row (the usual
 * case: the gap between them is a few pixels) are joined by an arc over their top edges, or
 * under their bottom edges when the route runs right to left, so the two legs of a loop
 * (A → B, B → A) do not lie on each other. Other pairs get a gentle curve from border to border.
 */
export function routeCurve(a: Box, b: Box): Curve {
  const ca = { x: a.left + a.width / 2, y: a.top + a.height / 2 };
  const cb = { x: b.left + b.width / 2, y: b.top + b.height / 2 };
  const dx = cb.x - ca.x;
  const sameRow = Math.abs(cb.y - ca.y) < Math.min(a.height, b.height) / 2 && dx !== 0;
  if (sameRow) {
    const rightwards = dx > 0;
    const dir = rightwards ? 1 : -1;
    const x1 = ca.x + (dir * a.width) / 4;
    const x2 = cb.x - (dir * b.width) / 4;
    const y1 = rightwards ? a.top : a.top + a.height;
    const y2 = rightwards ? b.top : b.top + b.height;
    const lift = ARC_LIFT_PX + Math.abs(dx) * 0.05;
    const cx = (x1 + x2) / 2;
    const cy = rightwards ? Math.min(y1, y2) - lift : Math.max(y1, y2) + lift;
    return withLabel({ x1, y1, cx, cy, x2, y2 });
  }
  const p1 = towardsBorder(ca, cb, a.width / 2, a.height / 2);
  const p2 = towardsBorder(cb, ca, b.width / 2, b.height / 2);
  return withLabel({
    x1: p1.x,
    y1: p1.y,
    x2: p2.x,
    y2: p2.y,
    cx: (p1.x + p2.x) / 2 + (p2.y - p1.y) * 0.15,
    cy: (p1.y + p2.y) / 2 - (p2.x - p1.x) * 0.15,
  });
}

/**
 * The label sits on the curve's midpoint (the control point lies off the curve); the head
 * points along the curve's last tangent, from the control point to the end.
 */
function withLabel(c: Omit<Curve, 'labelX' | 'labelY' | 'labelAnchor' | 'head'>): Curve {
  let ux = c.x2 - c.cx;
  let uy = c.y2 - c.cy;
  const len = Math.hypot(ux, uy) || 1;
  ux /= len;
  uy /= len;
  const bx = c.x2 - ux * HEAD_LENGTH_PX;
  const by = c.y2 - uy * HEAD_LENGTH_PX;
  const nx = -uy * HEAD_HALF_WIDTH_PX;
  const ny = ux * HEAD_HALF_WIDTH_PX;
  const pt = (x: number, y: number) => `${x.toFixed(1)},${y.toFixed(1)}`;
  const midX = (c.x1 + 2 * c.cx + c.x2) / 4;
  const midY = (c.y1 + 2 * c.cy + c.y2) / 4;
  // Up or down (stacked cards, as on a phone): beside the line, level with its middle.
  const upright = Math.abs(c.y2 - c.y1) > Math.abs(c.x2 - c.x1);
  return {
    ...c,
    labelX: upright ? Math.max(midX, c.x1, c.x2) + LABEL_SIDE_GAP_PX : midX,
    labelY: upright ? midY + LABEL_HALF_HEIGHT_PX : midY - 4,
    labelAnchor: upright ? 'start' : 'middle',
    head: `${pt(c.x2, c.y2)} ${pt(bx + nx, by + ny)} ${pt(bx - nx, by - ny)}`,
  };
}

/** Where the line from a box's centre `c` towards `to` leaves the box (half-sizes hw, hh). */
function towardsBorder(
  c: { x: number; y: number },
  to: { x: number; y: number },
  hw: number,
  hh: number,
): { x: number; y: number } {
  const dx = to.x - c.x;
  const dy = to.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const t = Math.min(
    dx === 0 ? Infinity : hw / Math.abs(dx),
    dy === 0 ? Infinity : hh / Math.abs(dy),
    1,
  );
  return { x: c.x + dx * t, y: c.y + dy * t };
}
