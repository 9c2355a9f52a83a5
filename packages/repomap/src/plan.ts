import picomatch from 'picomatch';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import { z } from 'zod';

/** A glob that picomatch accepts; unbalanced brackets are reported instead of matched literally. */
const GlobSchema = z
  .string()
  .min(1, 'a glob must not be empty')
  .superRefine((glob, ctx) => {
    try {
      picomatch.makeRe(glob, { strictBrackets: true });
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `invalid glob "${glob}": ${(err as Error).message}`,
      });
    }
  });

const LevelSchema = z.union(
  [z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)],
  {
    error: 'level must be 0, 1, 2, 3 or 4',
  },
);

const WeightSchema = z.number().positive('weight must be > 0').finite();

export const SectionRuleSchema = z.strictObject({ pattern: GlobSchema, level: LevelSchema });

/**
 * A verbosity rule sets the level of matching files, the level of sections inside them, or the
 * highest level the ranked fill may give them (`max_level`).
 */
export const VerbosityRuleSchema = z
  .strictObject({
    pattern: GlobSchema,
    level: LevelSchema.optional(),
    sections: z.array(SectionRuleSchema).optional(),
    max_level: LevelSchema.optional(),
  })
  .refine((r) => [r.level, r.sections, r.max_level].filter((v) => v !== undefined).length === 1, {
    message: 'a verbosity rule needs exactly one of "level", "sections" or "max_level"',
  });

export const FlightPlanSchema = z.strictObject({
  budget: z.number().int('budget must be an integer').positive('budget must be > 0').optional(),
  focus: z
    .strictObject({
      paths: z.array(z.strictObject({ pattern: GlobSchema, weight: WeightSchema })).optional(),
      symbols: z
        .array(z.strictObject({ name: z.string().min(1), weight: WeightSchema }))
        .optional(),
    })
    .optional(),
  verbosity: z.array(VerbosityRuleSchema).optional(),
  custom_queries: z
    .array(z.strictObject({ pattern: GlobSchema, query: z.string().min(1) }))
    .optional(),
});
export type FlightPlan = z.infer<typeof FlightPlanSchema>;
export type VerbosityRule = z.infer<typeof VerbosityRuleSchema>;
export type SectionRule = z.infer<typeof SectionRuleSchema>;

/** A flight plan that could not be read: names the file, line and field when known. */
export class FlightPlanError extends Error {
  file?: string;
  line?: number;
  field?: string;
  constructor(message: string, where: { file?: string; line?: number; field?: string } = {}) {
    const loc = [where.file, where.line].filter((x) => x !== undefined).join(':');
    const field = where.field ? ` (field ${where.field})` : '';
    super(`${loc ? `${loc}: ` : ''}${message}${field}`);
    this.name = 'FlightPlanError';
    this.file = where.file;
    this.line = where.line;
    this.field = where.field;
  }
}

function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(root)';
}

/** The issue to report: an unknown key explains a "missing" field best (a typo), so it goes first. */
function firstIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
}

function describeIssue(issue: z.core.$ZodIssue): { message: string; path: PropertyKey[] } {
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return { message: `unknown key "${issue.keys.join('", "')}"`, path: [...path, key] };
  }
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
    return { message: `missing (expected ${issue.expected})`, path };
  }
  if (issue.code === 'invalid_type') return { message: `expected ${issue.expected}`, path };
  return { message: issue.message, path };
}

/** Parses and validates a YAML flight plan; throws FlightPlanError naming file, line and field. */
export function parseFlightPlan(yamlText: string, fileName?: string): FlightPlan {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new FlightPlanError(`invalid YAML: ${e.message.split('\n')[0]}`, {
      file: fileName,
      line: lineAt(e.pos[0]),
    });
  }
  const value: unknown = doc.toJS() ?? {};
  const result = FlightPlanSchema.safeParse(value);
  if (result.success) return result.data;
  const { message, path } = describeIssue(firstIssue(result.error.issues));
  // Point at the deepest YAML node that exists along the issue's path.
  let line: number | undefined;
  for (let n = path.length; n >= 0 && line === undefined; n--) {
    const sub = path.slice(0, n);
    const node =
      sub.length === 0 ? doc.contents : (doc.getIn(sub as unknown[], true) as Node | undefined);
    if (node && typeof node === 'object' && 'range' in node && node.range) {
      line = lineAt(node.range[0]);
    } else if (n > 0 && typeof path[n - 1] === 'string') {
      // An unknown key: find the key node itself in its parent map.
      const parent =
        n - 1 === 0 ? doc.contents : doc.getIn(path.slice(0, n - 1) as unknown[], true);
      if (isMap(parent)) {
        for (const pair of parent.items) {
          const k = pair.key as Node | null;
          if (k && 'value' in k && k.value === path[n - 1] && k.range) line = lineAt(k.range[0]);
        }
      } else if (isSeq(parent) && parent.range) line = lineAt(parent.range[0]);
    }
  }
  throw new FlightPlanError(message, { file: fileName, line, field: fieldName(path) });
}

/** Validates a plan built in code (e.g. a navigator edit). */
export function validateFlightPlan(
  value: unknown,
): { ok: true; plan: FlightPlan } | { ok: false; error: string } {
  const result = FlightPlanSchema.safeParse(value);
  if (result.success) return { ok: true, plan: result.data };
  const { message, path } = describeIssue(firstIssue(result.error.issues));
  return { ok: false, error: `${fieldName(path)}: ${message}` };
}

/** Serialises a plan as YAML that parseFlightPlan reads back to the same plan. */
export function flightPlanToYaml(plan: FlightPlan, headerComment?: string): string {
  const body = stringify(plan, { lineWidth: 0 });
  if (!headerComment) return body;
  const header = headerComment
    .split('\n')
    .map((l) => (l ? `# ${l}` : '#'))
    .join('\n');
  return `${header}\n${body}`;
}
