import { describe, expect, it } from 'vitest';
import { checkToolCall } from './tool-args.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN } from './tools.js';

const errorOf = (name: string, args: unknown): string => {
  const checked = checkToolCall({ name, args });
  if (checked.ok) throw new Error(`expected ${name}(${JSON.stringify(args)}) to be refused`);
  return checked.error;
};

describe('checking a planner tool call', () => {
  it('names the argument of the wrong type, and what it got', () => {
    expect(errorOf(UPDATE_FLIGHT_PLAN, { reasoning: 42, updates: {} })).toBe(
      'bad arguments for update_flight_plan: "reasoning" must be a string, not a number ' +
        '(it takes {reasoning: string, updates: object | array})',
    );
    expect(errorOf(FINALIZE_CONTEXT, { summary: ['done'] })).toBe(
      'bad arguments for finalize_context: "summary" must be a string, not an array ' +
        '(it takes {summary: string})',
    );
  });

  it('names every missing argument', () => {
    expect(errorOf(UPDATE_FLIGHT_PLAN, { reasoning: 'zoom in' })).toContain('"updates" is missing');
    const both = errorOf(UPDATE_FLIGHT_PLAN, {});
    expect(both).toContain('"reasoning" is missing');
    expect(both).toContain('"updates" is missing');
    expect(errorOf(FINALIZE_CONTEXT, { sumary: 'typo' })).toContain('"summary" is missing');
  });

  it('says so when the arguments are not an object at all', () => {
    expect(errorOf(FINALIZE_CONTEXT, 'done')).toContain(
      'the arguments must be an object, not a string',
    );
    expect(errorOf(UPDATE_FLIGHT_PLAN, [{ op: 'add' }])).toContain(
      'the arguments must be an object, not an array',
    );
    expect(errorOf(UPDATE_FLIGHT_PLAN, null)).toContain('must be an object, not null');
    expect(errorOf(FINALIZE_CONTEXT, undefined)).toContain('no arguments were given');
  });

  it('refuses an unknown function and lists the tools there are', () => {
    expect(errorOf('delete_repository', {})).toBe(
      'unknown function "delete_repository"; the tools are update_flight_plan and finalize_context',
    );
  });

  it('accepts well-formed calls; whether a change is valid is for the plan update to say', () => {
    expect(checkToolCall({ name: FINALIZE_CONTEXT, args: { summary: 'ok' } })).toEqual({
      ok: true,
      call: { name: FINALIZE_CONTEXT, args: { summary: 'ok' } },
    });
    for (const updates of [{ verbosity: [] }, [{ op: 'remove', path: '/focus' }], 'nonsense', null])
      expect(
        checkToolCall({ name: UPDATE_FLIGHT_PLAN, args: { reasoning: 'r', updates } }),
      ).toEqual({
        ok: true,
        call: { name: UPDATE_FLIGHT_PLAN, args: { reasoning: 'r', updates } },
      });
  });
});
