import { validateFlightPlan, type FlightPlan } from '@clippy/repomap';
import jsonpatch from 'fast-json-patch';
import type { PatchOperation } from './state.js';

export type PlanUpdateResult =
  { ok: true; plan: FlightPlan; operations: PatchOperation[] } | { ok: false; error: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * RFC 7396 JSON Merge Patch: objects merge key by key, `null` deletes a key, anything else
 * (arrays included) replaces. It is what "a partial plan" means to a model.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** Drops empty containers a merge or patch leaves behind, so equal plans compare equal. */
function tidy(plan: Record<string, unknown>): Record<string, unknown> {
  const out = { ...plan };
  if (isPlainObject(out.focus)) {
    const focus = { ...out.focus };
    for (const k of Object.keys(focus))
      if (Array.isArray(focus[k]) && (focus[k] as unknown[]).length === 0) delete focus[k];
    if (Object.keys(focus).length === 0) delete out.focus;
    else out.focus = focus;
  }
  for (const k of ['verbosity', 'custom_queries']) {
    if (Array.isArray(out[k]) && (out[k] as unknown[]).length === 0) delete out[k];
  }
  return out;
}

/**
 * Applies a planner's `updates` to the plan: an array is RFC 6902 operations, an object is a
 * partial plan (merge patch). The result is validated; a rejected change returns the error and
 * leaves the plan as it was. The token budget belongs to the user, so changing it is refused.
 */
export function applyPlanUpdate(plan: FlightPlan, updates: unknown): PlanUpdateResult {
  let next: unknown;
  if (Array.isArray(updates)) {
    const ops = updates as jsonpatch.Operation[];
    const invalid = jsonpatch.validate(ops, structuredClone(plan));
    if (invalid) {
      const where = invalid.index !== undefined ? ` (operation ${invalid.index})` : '';
      return { ok: false, error: `invalid JSON Patch${where}: ${invalid.message.split('\n')[0]}` };
    }
    try {
      next = jsonpatch.applyPatch(structuredClone(plan), ops, false, true, true).newDocument;
    } catch (err) {
      return { ok: false, error: `invalid JSON Patch: ${(err as Error).message.split('\n')[0]}` };
    }
  } else if (isPlainObject(updates)) {
    next = mergePatch(plan, updates);
  } else {
    return {
      ok: false,
      error: 'updates must be an object (partial flight plan) or an array of RFC 6902 operations',
    };
  }
  if (!isPlainObject(next)) return { ok: false, error: 'the flight plan must stay an object' };
  const checked = validateFlightPlan(tidy(next));
  if (!checked.ok) return { ok: false, error: `invalid flight plan: ${checked.error}` };
  if (checked.plan.budget !== plan.budget) {
    return {
      ok: false,
      error: `budget is fixed by the user at ${plan.budget ?? 'its default'} tokens; change levels and focus instead`,
    };
  }
  const operations = jsonpatch.compare(plan, checked.plan) as PatchOperation[];
  return { ok: true, plan: checked.plan, operations };
}
