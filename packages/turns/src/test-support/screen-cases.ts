// The repository's corpus of labelled agent screens (test/screens/cases.json): screens captured
// for this project, screens constructed for one rule, and screens people pasted in public issue
// threads. Used by screen-cases.test.ts and scripts/corpus-report.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { BUILTIN_PRESETS } from '../builtin-presets.js';

export const SCREENS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test',
  'screens',
);

const StateSchema = z.enum(['idle', 'busy', 'blocked', 'unknown']);

const ScreenCaseSchema = z
  .object({
    name: z.string().regex(/^[a-z]+-[a-z0-9-]+$/u),
    /** Relative to test/screens; a `.ansi.txt` beside it is the same screen with colours. */
    file: z.string().regex(/^(?:public\/)?[a-z0-9-]+\.txt$/u),
    preset: z.string(),
    /** What a person looking at the screen would say the agent is doing. */
    state: StateSchema,
    agent: z.string(),
    /** Where the screen comes from: an issue thread's address, or how it was captured or built. */
    source: z.string(),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/u),
    /** Why the label (what on the screen says so). */
    why: z.string().optional(),
    /** How a pasted fragment was placed on the screen (what was added, what was split). */
    placed: z.string().optional(),
    /** A real screen the preset cannot classify as labelled: what it says instead, and why. */
    knownMiss: z.object({ classifiedAs: StateSchema, why: z.string() }).strict().optional(),
  })
  .strict();
export type ScreenCase = z.infer<typeof ScreenCaseSchema>;

/** Every labelled screen case, validated (a preset that does not exist is an error). */
export function screenCases(): ScreenCase[] {
  const raw = JSON.parse(fs.readFileSync(path.join(SCREENS_DIR, 'cases.json'), 'utf8')) as unknown;
  const cases = z.array(ScreenCaseSchema).parse(raw);
  for (const c of cases) {
    if (!BUILTIN_PRESETS[c.preset]) throw new Error(`${c.name}: no preset ${c.preset}`);
    if (c.file.replace(/^public\//u, '') !== `${c.name}.txt`)
      throw new Error(`${c.name}: its file must be named ${c.name}.txt`);
  }
  return cases;
}

export function readScreen(file: string): string {
  return fs.readFileSync(path.join(SCREENS_DIR, file), 'utf8');
}

/** Whether a case's screen comes from a public source (an address), not from this project. */
export function isPublic(c: ScreenCase): boolean {
  return /^https?:\/\//u.test(c.source);
}
