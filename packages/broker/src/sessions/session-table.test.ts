import { describe, expect, it } from 'vitest';
import { SessionTable } from './session-table.js';
import type { Session } from './session.js';

function fake(id: string, name: string, live = true): Session {
  return { id, name, live } as unknown as Session;
}

describe('SessionTable', () => {
  it('issues opaque base32 IDs that are never reused', () => {
    const t = new SessionTable();
    const ids = new Set<string>();
    for (let i = 0; i < 5000; i++) ids.add(t.newId());
    expect(ids.size).toBe(5000);
    for (const id of ids) expect(id).toMatch(/^[a-z2-7]{6}$/);
  });

  it('resolves by ID, then live name, then the newest exited name', () => {
    const t = new SessionTable();
    t.add(fake('aaaaaa', 'sh', false));
    t.add(fake('bbbbbb', 'sh', false));
    expect(t.resolve('sh')!.id).toBe('bbbbbb');
    t.add(fake('cccccc', 'sh', true));
    expect(t.resolve('sh')!.id).toBe('cccccc');
    expect(t.resolve('aaaaaa')!.id).toBe('aaaaaa');
    expect(t.resolve('zz')).toBeUndefined();
  });

  it('default names avoid every listed name; explicit names only clash with live ones', () => {
    const t = new SessionTable();
    t.add(fake('aaaaaa', 'bash', false));
    expect(t.uniqueName('bash')).toBe('bash-2');
    expect(t.nameTaken('bash')).toBe(false);
    t.add(fake('bbbbbb', 'bash-2', true));
    expect(t.uniqueName('bash')).toBe('bash-3');
    expect(t.nameTaken('bash-2')).toBe(true);
    expect(t.nameTaken('aaaaaa')).toBe(true);
  });
});
