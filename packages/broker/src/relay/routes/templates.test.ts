import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_TEMPLATES, render, resolveTemplate, type TemplateView } from './templates.js';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-templates-'));
const env = { XDG_CONFIG_HOME: home, HOME: home };
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const view: TemplateView = {
  text: 'if (a < b && c > "d") { return \'&amp;\'; }',
  prompt: 'fix it',
  source: 'claude',
  turn_id: 'ab12cd:3',
  round: 2,
  turns: [],
  wrap: '',
};

describe('route templates', () => {
  it('render a turn as it was written: no HTML escaping', () => {
    expect(render(resolveTemplate('plain', env), view)).toBe(view.text);
    expect(render(resolveTemplate('implement', env), view)).toContain('(ab12cd:3, round 2)');
  });

  it("read the user's templates dir, refuse paths, unknown names and bad syntax", () => {
    fs.mkdirSync(path.join(home, 'clippy', 'templates'), { recursive: true });
    fs.writeFileSync(
      path.join(home, 'clippy', 'templates', 'mine.md'),
      '{{source}} says:\n{{text}}',
    );
    expect(render(resolveTemplate('mine', env), view)).toBe(`claude says:\n${view.text}`);
    expect(() => resolveTemplate('../mine', env)).toThrow(/is not a template name/u);
    expect(() => resolveTemplate('nope', env)).toThrow(
      new RegExp(`built in are ${Object.keys(BUILTIN_TEMPLATES).join(', ')}`, 'u'),
    );
    fs.writeFileSync(path.join(home, 'clippy', 'templates', 'broken'), '{{#turns}} never closed');
    expect(() => resolveTemplate('broken', env)).toThrow(/template 'broken': Unclosed section/u);
  });
});
