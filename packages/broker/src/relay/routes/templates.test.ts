import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_TEMPLATES,
  checked,
  render,
  renderWithDiffs,
  resolveTemplate,
  usesDiff,
  type TemplateView,
} from './templates.js';

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
  diff: '',
  diff_stat: '',
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

describe('route templates that show a diff', () => {
  const diff = {
    diff: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new',
    diff_stat: ' x | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)',
  };

  it('are told apart by the names they use, inside sections too', () => {
    expect(usesDiff(resolveTemplate('review-diff', env))).toBe(true);
    expect(usesDiff(resolveTemplate('review', env))).toBe(false);
    expect(usesDiff(checked('t', '{{#turns}}{{diff_stat}}{{/turns}}'))).toBe(true);
    expect(usesDiff(checked('t', '{{text}} diff'))).toBe(false);
  });

  it('review-diff: the instruction, the stat and the diff, then what the writer said', () => {
    expect(render(resolveTemplate('review-diff', env), { ...view, ...diff })).toBe(
      'Review the change claude made (ab12cd:3). If it is ready, answer LGTM; otherwise list what must change.\n\n' +
        `Its diff against where it started:\n\n${diff.diff_stat}\n\n${diff.diff}\n\n` +
        `What claude said:\n\n${view.text}`,
    );
    expect(render(resolveTemplate('review-diff', env), view)).toBe(
      'Review the change claude made (ab12cd:3). If it is ready, answer LGTM; otherwise list what must change.\n\n' +
        'claude has changed no file yet.\n\n' +
        `What claude said:\n\n${view.text}`,
    );
  });

  it('render once the sources’ diffs are read, each source’s own in a fan-in', async () => {
    const { diff: _d, diff_stat: _s, ...bare } = view;
    const plain = renderWithDiffs(resolveTemplate('plain', env), bare, ['s1'], () => {
      throw new Error('a template without a diff reads none');
    });
    expect(plain).toBe(view.text);
    const asked: string[] = [];
    const diffOf = (s: string) => {
      asked.push(s);
      return s === 'none'
        ? null
        : Promise.resolve({ diff: `diff of ${s}`, diff_stat: `stat of ${s}` });
    };
    const t = checked('t', '{{diff}}|{{#turns}}[{{source}}: {{diff_stat}}]{{/turns}}');
    const fanIn = {
      ...bare,
      turns: [
        { source: 'a', text: '', prompt: '', turn_id: 'a:1' },
        { source: 'b', text: '', prompt: '', turn_id: 'b:1' },
        { source: 'c', text: '', prompt: '', turn_id: 'c:1' },
      ],
    };
    const message = renderWithDiffs(t, fanIn, ['ida', 'none', 'idc'], diffOf);
    expect(message).toBeInstanceOf(Promise);
    expect(asked).toEqual(['ida', 'none', 'idc']);
    expect(await message).toBe('diff of ida\n\ndiff of idc|[a: stat of ida][b: ][c: stat of idc]');
  });
});
