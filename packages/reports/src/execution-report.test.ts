import fs from 'node:fs';
import { describe, it, expect } from 'vitest';
import { repoRoot } from '../test/json-schema.js';
import { ReportValidationError } from './errors.js';
import {
  deriveExecutionStatus,
  fencedBlock,
  renderExecutionReport,
  type ExecutionAction,
  type ExecutionReportInput,
} from './execution-report.js';

const F3 = '```';
const F4 = '````';
const F5 = '`````';
const START = new Date('2026-03-01T12:00:00.000Z');
const END = new Date('2026-03-01T12:00:05.230Z');
const TIP =
  '> **Tip:** This execution report is large. Before proceeding, summarize the key outcomes, errors, and any new file contents into your rationale. After you have processed all necessary information, ask the user to delete the message containing this report to preserve context.';

function input(actions: ExecutionAction[], extra: Partial<ExecutionReportInput> = {}) {
  return { startTime: START, endTime: END, os: 'linux', cwd: '/home/u/proj', actions, ...extra };
}

/** The fixed head of every report in these tests, for the given status. */
function head(status: string): string[] {
  return [
    '# Execution Report',
    '',
    '**Run Summary:**',
    `- **Status:** ${status}`,
    '- **Start Time:** 2026-03-01T12:00:00.000Z',
    '- **End Time:** 2026-03-01T12:00:05.230Z',
    '- **Duration:** 5.23 seconds',
    '',
    '**Environment:**',
    '- **Operating System:** linux',
    '- **Working Directory:** /home/u/proj',
    '',
    '---',
    '',
    '## Action Log',
    '',
  ];
}

const doc = (lines: string[]): string => lines.join('\n') + '\n';

describe('renderExecutionReport', () => {
  it('renders a successful run', () => {
    const md = renderExecutionReport(
      input([
        { name: 'create', status: 'SUCCESS', details: "File 'src/main.py' created successfully." },
        {
          name: 'execute',
          status: 'SUCCESS',
          details: 'Ran `pytest`.',
          output: 'collected 3 items\n3 passed\n',
          error: '',
        },
      ]),
    );
    expect(md).toBe(
      doc([
        ...head('SUCCESS'),
        '### Action 1: create',
        '',
        '- **Status:** SUCCESS',
        "- **Details:** File 'src/main.py' created successfully.",
        '',
        '---',
        '',
        '### Action 2: execute',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Ran `pytest`.',
        '- **Output:**',
        F3,
        'collected 3 items',
        '3 passed',
        F3,
        '',
        '---',
      ]),
    );
  });

  it('renders a failed run with its error and no block for blank output', () => {
    const md = renderExecutionReport(
      input(
        [
          {
            name: 'execute',
            status: 'FAILURE',
            details: 'Command `make` exited with code 2.',
            output: ' \n',
            error: "make: *** No rule to make target 'all'.  Stop.\n",
          },
        ],
        { endTime: new Date('2026-03-01T12:01:00.000Z') },
      ),
    );
    expect(md).toBe(
      doc([
        ...head('FAILURE').map((l) =>
          l.startsWith('- **End Time:**')
            ? '- **End Time:** 2026-03-01T12:01:00.000Z'
            : l.startsWith('- **Duration:**')
              ? '- **Duration:** 60.00 seconds'
              : l,
        ),
        '### Action 1: execute',
        '',
        '- **Status:** FAILURE',
        '- **Details:** Command `make` exited with code 2.',
        '- **Error:**',
        F3,
        "make: *** No rule to make target 'all'.  Stop.",
        F3,
        '',
        '---',
      ]),
    );
  });

  it('renders a partial success with output and error on the same action', () => {
    const md = renderExecutionReport(
      input([
        { name: 'read', status: 'SUCCESS', details: 'Read README.md.', output: '# Project' },
        {
          name: 'execute',
          status: 'FAILURE',
          details: 'Tests failed.',
          output: '1 passed, 1 failed',
          error: 'AssertionError: 1 != 2',
        },
      ]),
    );
    expect(md).toBe(
      doc([
        ...head('PARTIAL_SUCCESS'),
        '### Action 1: read',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Read README.md.',
        '- **Output:**',
        F3,
        '# Project',
        F3,
        '',
        '---',
        '',
        '### Action 2: execute',
        '',
        '- **Status:** FAILURE',
        '- **Details:** Tests failed.',
        '- **Output:**',
        F3,
        '1 passed, 1 failed',
        F3,
        '- **Error:**',
        F3,
        'AssertionError: 1 != 2',
        F3,
        '',
        '---',
      ]),
    );
  });

  it("renders skipped actions with the seed's sentence and the user's reason", () => {
    const md = renderExecutionReport(
      input([
        { name: 'create', status: 'SUCCESS', details: 'Created a.txt.' },
        {
          name: 'edit',
          status: 'SKIPPED',
          details: 'ignored for skipped actions',
          reason: "I don't think this is the right file to edit for this change.",
        },
        { name: 'execute', status: 'SKIPPED', details: '' },
        { name: 'edit', status: 'SKIPPED', details: '', reason: 'use "b.txt"\ninstead' },
      ]),
    );
    const skipped =
      '- **Details:** User rejected this action. These changes have not been implemented, and the previous state is still the current one.';
    expect(md).toBe(
      doc([
        ...head('SUCCESS'),
        '### Action 1: create',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Created a.txt.',
        '',
        '---',
        '',
        '### Action 2: edit',
        '',
        '- **Status:** SKIPPED',
        skipped,
        `- **Reason:** "I don't think this is the right file to edit for this change."`,
        '',
        '---',
        '',
        '### Action 3: execute',
        '',
        '- **Status:** SKIPPED',
        skipped,
        '',
        '---',
        '',
        '### Action 4: edit',
        '',
        '- **Status:** SKIPPED',
        skipped,
        '- **Reason:** "use \\"b.txt\\"\\ninstead"',
        '',
        '---',
      ]),
    );
  });

  it('uses a fence longer than any backtick run in the output or error', () => {
    const md = renderExecutionReport(
      input(
        [
          {
            name: 'read',
            status: 'SUCCESS',
            details: 'Read README.md.',
            output: `Usage:\n${F3}sh\nclippy ls\n${F3}\n`,
            error: 'one ` tick',
          },
          {
            name: 'read',
            status: 'SUCCESS',
            details: 'Read docs/fences.md.',
            output: `${F4}md\n${F3}\nnested\n${F3}\n${F4}`,
          },
        ],
        { status: 'SUCCESS' },
      ),
    );
    expect(md).toBe(
      doc([
        ...head('SUCCESS'),
        '### Action 1: read',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Read README.md.',
        '- **Output:**',
        F4,
        'Usage:',
        `${F3}sh`,
        'clippy ls',
        F3,
        F4,
        '- **Error:**',
        F3,
        'one ` tick',
        F3,
        '',
        '---',
        '',
        '### Action 2: read',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Read docs/fences.md.',
        '- **Output:**',
        F5,
        `${F4}md`,
        F3,
        'nested',
        F3,
        F4,
        F5,
        '',
        '---',
      ]),
    );
  });

  it('uses a given status instead of deriving one', () => {
    const md = renderExecutionReport(
      input([{ name: 'a', status: 'SUCCESS', details: 'ok' }], { status: 'FAILURE' }),
    );
    expect(md).toContain('- **Status:** FAILURE\n');
  });

  it('says so when there are no actions', () => {
    expect(renderExecutionReport(input([]))).toBe(
      doc([...head('SUCCESS'), 'No actions were run.']),
    );
  });

  describe('the pruning tip', () => {
    /** A one-action report whose output is `output`; it has 25 lines plus the output's lines. */
    const expectedDoc = (output: string): string =>
      doc([
        ...head('SUCCESS'),
        '### Action 1: dump',
        '',
        '- **Status:** SUCCESS',
        '- **Details:** Dumped.',
        '- **Output:**',
        F3,
        output,
        F3,
        '',
        '---',
      ]);
    const render = (output: string, opts = {}) =>
      renderExecutionReport(
        input([{ name: 'dump', status: 'SUCCESS', details: 'Dumped.', output }]),
        opts,
      );
    const lineCount = (s: string) => s.split('\n').length - 1;
    const outputOfLines = (n: number) =>
      Array.from({ length: n }, (_, i) => `line ${String(i + 1).padStart(2, '0')}`).join('\n');

    it.each([
      [79, false],
      [80, false],
      [81, true],
    ])('a report of %i lines gets the tip: %s', (lines, tip) => {
      const output = outputOfLines(lines - 25);
      const expected = expectedDoc(output);
      expect(lineCount(expected)).toBe(lines);
      expect(expected.length).toBeLessThan(4000);
      expect(render(output)).toBe(tip ? `${expected}\n${TIP}\n` : expected);
    });

    it.each([
      [3999, false],
      [4000, false],
      [4001, true],
    ])('a report of %i characters gets the tip: %s', (chars, tip) => {
      const output = 'x'.repeat(chars - expectedDoc('').length);
      const expected = expectedDoc(output);
      expect(expected.length).toBe(chars);
      expect(lineCount(expected)).toBeLessThan(80);
      expect(render(output)).toBe(tip ? `${expected}\n${TIP}\n` : expected);
    });

    it('counts characters as code points, not UTF-16 units', () => {
      const fixed = expectedDoc('').length;
      // 4000 code points, 4000 + 10 UTF-16 units: under the limit.
      const output = '😀'.repeat(10) + 'x'.repeat(4000 - fixed - 10);
      expect(render(output)).toBe(expectedDoc(output));
      expect(render(output + 'y')).toBe(`${expectedDoc(output + 'y')}\n${TIP}\n`);
    });

    it('takes its limits from the options', () => {
      const output = outputOfLines(1); // 26 lines
      expect(render(output, { maxLines: 26 })).toBe(expectedDoc(output));
      expect(render(output, { maxLines: 25 })).toBe(`${expectedDoc(output)}\n${TIP}\n`);
      const chars = expectedDoc(output).length;
      expect(render(output, { maxChars: chars })).toBe(expectedDoc(output));
      expect(render(output, { maxChars: chars - 1 })).toBe(`${expectedDoc(output)}\n${TIP}\n`);
    });
  });

  it('rejects bad input with an error naming the problem', () => {
    expect(() =>
      renderExecutionReport(input([], { endTime: new Date(START.getTime() - 1) })),
    ).toThrow(/endTime is before startTime/);
    expect(() =>
      renderExecutionReport(input([{ name: 'a', status: 'DONE' as 'SUCCESS', details: '' }])),
    ).toThrow(ReportValidationError);
    expect(() => renderExecutionReport(input([]), { maxLines: -1 })).toThrow(/maxLines/);
    expect(() => renderExecutionReport(input([], { startTime: new Date('nope') }))).toThrow(
      /startTime/,
    );
  });
});

describe('deriveExecutionStatus', () => {
  const of = (...s: ('SUCCESS' | 'FAILURE' | 'SKIPPED')[]) =>
    deriveExecutionStatus(s.map((status) => ({ status })));
  it.each([
    [['SUCCESS', 'SUCCESS'], 'SUCCESS'],
    [['SUCCESS', 'SKIPPED'], 'SUCCESS'],
    [['SKIPPED'], 'SUCCESS'],
    [[], 'SUCCESS'],
    [['FAILURE', 'FAILURE'], 'FAILURE'],
    [['FAILURE', 'SKIPPED'], 'FAILURE'],
    [['SUCCESS', 'FAILURE'], 'PARTIAL_SUCCESS'],
    [['SUCCESS', 'SKIPPED', 'FAILURE'], 'PARTIAL_SUCCESS'],
  ] as const)('%j → %s', (statuses, expected) => {
    expect(of(...statuses)).toBe(expected);
  });
});

describe('fencedBlock', () => {
  it('is at least three backticks and one longer than the longest run inside', () => {
    expect(fencedBlock('plain')).toBe('```\nplain\n```');
    expect(fencedBlock('a `` b')).toBe('```\na `` b\n```');
    expect(fencedBlock('a ``` b')).toBe('````\na ``` b\n````');
    expect(fencedBlock('``````')).toBe('```````\n``````\n```````');
  });
});

describe('docs/reports.md', () => {
  it('shows exactly what the renderer writes', () => {
    const docs = fs.readFileSync(`${repoRoot}/docs/reports.md`, 'utf8');
    const shown = /\n````text\n([\s\S]*?)````\n/.exec(docs)?.[1];
    expect(shown).toBeDefined();
    const md = renderExecutionReport(
      input([
        {
          name: 'execute',
          status: 'FAILURE',
          details: 'Tests failed.',
          output: '1 passed, 1 failed\n',
          error: 'AssertionError: 1 != 2\n',
        },
        {
          name: 'edit',
          status: 'SKIPPED',
          details: '',
          reason: "I don't think this is the right file to edit for this change.",
        },
      ]),
    );
    expect(md).toBe(shown);
  });
});
