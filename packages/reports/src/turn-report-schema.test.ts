import fs from 'node:fs';
import path from 'node:path';
import { describe, it, expect } from 'vitest';
import { compileDocSchema, repoRoot, schemaErrors } from '../test/json-schema.js';
import { turnReportSchemaUrl } from './schema-files.js';
import { sharedMissing } from '@clippy/testkit/requirements';

const validate = compileDocSchema('turn-report.schema.json');

/** A turn report shaped like the seed's example. */
function example(): Record<string, unknown> {
  return {
    step_number: 3,
    timestamp: '2025-12-31T10:35:00Z',
    cost_this_turn: 0.0012,
    total_cost: 0.0036,
    budget_remaining: 1.9964,
    budget_percentage: 0.18,
    map_size_tokens: 15200,
    token_budget: 20000,
    token_utilization: 76.0,
    file_count: 47,
    focus_areas: [
      { path: 'src/auth/', verbosity_level: 4, token_contribution: 8500 },
      { path: 'src/models/user.py', verbosity_level: 3 },
    ],
    excluded_areas: ['node_modules/', '.git/'],
    last_action: 'Increased verbosity on src/models/user.py to L3',
    reasoning: 'The User model is referenced by the auth middleware.',
    is_complete: false,
    completion_reason: null,
  };
}

describe('docs/turn-report.schema.json', () => {
  it('is where turnReportSchemaUrl points', () => {
    expect(fs.existsSync(turnReportSchemaUrl)).toBe(true);
  });

  it('accepts the seed-shaped example, with a null or a known completion reason', () => {
    expect(schemaErrors(validate, example())).toBe('');
    expect(
      schemaErrors(validate, { ...example(), is_complete: true, completion_reason: 'agent_done' }),
    ).toBe('');
    const { completion_reason: _, excluded_areas: __, ...minimal } = example();
    expect(schemaErrors(validate, minimal)).toBe('');
  });

  it.each([
    ['an unknown completion reason', { completion_reason: 'tired' }],
    ['step 0', { step_number: 0 }],
    ['a bad timestamp', { timestamp: '31/12/2025' }],
    ['a negative cost', { cost_this_turn: -0.1 }],
    ['a percentage above 100', { budget_percentage: 101 }],
    ['a focus area at L2', { focus_areas: [{ path: 'src/', verbosity_level: 2 }] }],
    ['a missing reasoning', { reasoning: undefined }],
  ])('rejects %s', (_name, change) => {
    const report: Record<string, unknown> = { ...example(), ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete report[k];
    expect(schemaErrors(validate, report)).not.toBe('');
  });

  const seed = path.resolve(repoRoot, '..', 'shared', 'seeds', '000_dec0df11268e9f17.txt');
  it.skipIf(sharedMissing(seed, 'the seed turn report') !== null)(
    "is the seed's schema with only `nullable` replaced by a null type",
    () => {
      const text = fs.readFileSync(seed, 'utf8');
      const block = /## JSON Schema\s+```json\n([\s\S]*?)```/.exec(text)?.[1];
      expect(block).toBeDefined();
      const fromSeed = JSON.parse(block ?? '') as {
        properties: { completion_reason: Record<string, unknown> };
      };
      const reason = fromSeed.properties.completion_reason;
      expect(reason).toMatchObject({ type: 'string', nullable: true });
      delete reason.nullable;
      reason.type = ['string', 'null'];
      const shipped: unknown = JSON.parse(fs.readFileSync(turnReportSchemaUrl, 'utf8'));
      expect(shipped).toEqual(fromSeed);
    },
  );
});
