import type { FunctionDeclaration } from '@google/genai';

export const UPDATE_FLIGHT_PLAN = 'update_flight_plan';
export const FINALIZE_CONTEXT = 'finalize_context';
export const TOOL_NAMES = [UPDATE_FLIGHT_PLAN, FINALIZE_CONTEXT] as const;

/** A call a planner asks the loop to run. */
export interface ToolCall {
  name: string;
  args: unknown;
}

/** What the loop answers a call with; the next step's planner input carries it. */
export interface ToolResult {
  name: string;
  args: unknown;
  ok: boolean;
  /** JSON-able answer shown to the planner (map figures on success, the error otherwise). */
  response: Record<string, unknown>;
  error?: string;
}

/**
 * A verbosity rule: a level for files matching a glob, a cap on the level the ranked fill gives
 * them, or levels for sections inside them.
 */
const levelRule = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      description: 'glob relative to the repository root, e.g. src/auth/**',
    },
    level: {
      type: 'integer',
      minimum: 0,
      maximum: 4,
      description: '0 exclude, 1 path only, 2 structure, 3 interface, 4 full text',
    },
    max_level: {
      type: 'integer',
      minimum: 0,
      maximum: 4,
      description:
        'instead of level: the highest level the ranked fill may give matching files (e.g. 2: the rest as structure at most)',
    },
    sections: {
      type: 'array',
      description: 'instead of level: per-symbol/heading levels inside matching files',
      items: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          level: { type: 'integer', minimum: 0, maximum: 4 },
        },
        required: ['pattern', 'level'],
      },
    },
  },
  required: ['pattern'],
};

const weighted = (key: 'pattern' | 'name') => ({
  type: 'array',
  items: {
    type: 'object',
    properties: { [key]: { type: 'string' }, weight: { type: 'number', exclusiveMinimum: 0 } },
    required: [key, 'weight'],
  },
});

/** A partial flight plan (JSON Merge Patch: objects merge, arrays replace, null deletes). */
const partialPlan = {
  type: 'object',
  description:
    'partial flight plan, merged into the current plan (arrays replace the old array; null removes a key)',
  properties: {
    focus: {
      type: ['object', 'null'],
      properties: { paths: weighted('pattern'), symbols: weighted('name') },
    },
    verbosity: {
      type: ['array', 'null'],
      items: levelRule,
      description: 'rules in order; the last matching rule wins',
    },
  },
};

/** RFC 6902 operations on the plan, e.g. {op: "add", path: "/verbosity/-", value: {...}}. */
const patchOps = {
  type: 'array',
  description: 'RFC 6902 JSON Patch operations on the flight plan',
  items: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
      path: { type: 'string', description: 'JSON Pointer into the plan, e.g. /verbosity/-' },
      from: { type: 'string' },
      value: { description: 'the value for add, replace and test' },
    },
    required: ['op', 'path'],
  },
};

/**
 * The two tools, declared with JSON Schema (`parametersJsonSchema`): `updates` is one of two
 * shapes and a patch value may be anything, which the OpenAPI subset of `parameters` cannot say.
 */
export const TOOL_DECLARATIONS: FunctionDeclaration[] = [
  {
    name: UPDATE_FLIGHT_PLAN,
    description:
      'Change the flight plan (verbosity levels and focus) and regenerate the map. The change is validated; an invalid change is rejected with the reason and the plan stays as it was.',
    parametersJsonSchema: {
      type: 'object',
      properties: {
        reasoning: {
          type: 'string',
          description: 'why this change serves the goal (shown to the user)',
        },
        updates: {
          description: 'a partial flight plan (object) or RFC 6902 operations (array)',
          anyOf: [partialPlan, patchOps],
        },
      },
      required: ['reasoning', 'updates'],
    },
  },
  {
    name: FINALIZE_CONTEXT,
    description: 'Finish: the current map is the context for the goal.',
    parametersJsonSchema: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'what the context holds and why, for the user' },
      },
      required: ['summary'],
    },
  },
];
