import { describe, expect, it } from 'vitest';
import { routeCurve } from './route-curve.js';

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

  it('goes from border to border between rows', () => {
    const c = routeCurve(card(0, 20), card(0, 200));
    expect(c.y1).toBe(150);
    expect(c.y2).toBe(200);
    expect(c.x1).toBe(150);
    expect(c.x2).toBe(150);
  });
});
