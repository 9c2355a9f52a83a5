import { describe, expect, it } from 'vitest';
import { routeCurve, type Curve } from './route-curve.js';

/** The box an 11 px label takes (6.6 px a character, as the page's font draws it), by its anchor. */
function labelBox(c: Curve, text: string) {
  const width = text.length * 6.6;
  const left = c.labelAnchor === 'middle' ? c.labelX - width / 2 : c.labelX;
  return { left, right: left + width, top: c.labelY - 9, bottom: c.labelY + 2 };
}

const card = (left: number, top: number) => ({ left, top, width: 300, height: 130 });

describe('routeCurve', () => {
  it('joins neighbours in a row by an arc over their tops, ending on the target', () => {
    const c = routeCurve(card(0, 20), card(314, 20));
    expect(c.y1).toBe(20);
    expect(c.y2).toBe(20);
    expect(c.x1).toBeGreaterThan(150);
    expect(c.x2).toBeLessThan(464);
    expect(c.x2).toBeGreaterThan(314);
    expect(c.cy).toBeLessThan(20);
    // The label is on the arc, above the cards.
    expect(c.labelY).toBeLessThan(20);
    expect(c.labelX).toBeCloseTo((c.x1 + c.x2) / 2);
  });

  it('points the arrowhead along the end of the curve, at the target', () => {
    const c = routeCurve(card(0, 20), card(0, 200));
    const [tip, b1, b2] = c.head.split(' ').map((p) => p.split(',').map(Number));
    // Downwards: the tip on the target's top border, the base 10 px back along the curve.
    expect(tip).toEqual([150, 200]);
    const base = [(b1![0]! + b2![0]!) / 2, (b1![1]! + b2![1]!) / 2];
    expect(Math.hypot(base[0]! - 150, base[1]! - 200)).toBeCloseTo(10, 0);
    expect(base[1]).toBeLessThan(200);
    expect(Math.hypot(b1![0]! - b2![0]!, b1![1]! - b2![1]!)).toBeCloseTo(10, 0);
  });

  it('runs the other leg of a loop under the cards', () => {
    const back = routeCurve(card(314, 20), card(0, 20));
    expect(back.y1).toBe(150);
    expect(back.y2).toBe(150);
    expect(back.cy).toBeGreaterThan(150);
  });

  it('keeps the label clear of the arrowhead between cards stacked on a phone (one column, 14 px apart)', () => {
    const phone = (top: number) => ({ left: 10, top, width: 370, height: 130 });
    for (const [a, b] of [
      [phone(36), phone(180)],
      [phone(180), phone(36)],
      [phone(36), phone(324)],
    ] as const) {
      const c = routeCurve(a, b);
      const label = labelBox(c, 'relay-1 (12)');
      const head = c.head.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
      const headBox = {
        left: Math.min(...head.map((p) => p[0])),
        right: Math.max(...head.map((p) => p[0])),
        top: Math.min(...head.map((p) => p[1])),
        bottom: Math.max(...head.map((p) => p[1])),
      };
      const overlaps =
        label.left < headBox.right &&
        label.right > headBox.left &&
        label.top < headBox.bottom &&
        label.bottom > headBox.top;
      expect(overlaps, JSON.stringify({ label, headBox })).toBe(false);
      // Still on the page: within the cards' width.
      expect(label.right).toBeLessThanOrEqual(380);
    }
  });

  it('goes from border to border between rows', () => {
    const c = routeCurve(card(0, 20), card(0, 200));
    expect(c.y1).toBe(150);
    expect(c.y2).toBe(200);
    expect(c.x1).toBe(150);
    expect(c.x2).toBe(150);
  });
});
