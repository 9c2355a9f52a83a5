import { describe, expect, it } from 'vitest';
import { FlightPlanError, flightPlanToYaml, parseFlightPlan, validateFlightPlan } from './plan.js';

const GOOD = `budget: 20000
focus:
  paths: [{pattern: "src/auth/**", weight: 10.0}]
  symbols: [{name: "User", weight: 10.0}]
verbosity:
  - {pattern: "src/**", level: 2}
  - {pattern: "src/auth/**", level: 4}
  - pattern: "docs/**"
    sections: [{pattern: "Install*", level: 4}]
custom_queries: [{pattern: "*.ts", query: "(function_declaration) @fn"}]
`;

function errorOf(text: string): FlightPlanError {
  try {
    parseFlightPlan(text, 'plan.yaml');
  } catch (err) {
    if (err instanceof FlightPlanError) return err;
    throw err;
  }
  throw new Error('expected a FlightPlanError');
}

describe('flight plans', () => {
  it('parses the reference plan', () => {
    const plan = parseFlightPlan(GOOD, 'plan.yaml');
    expect(plan.budget).toBe(20000);
    expect(plan.verbosity).toHaveLength(3);
    expect(plan.verbosity![2]!.sections![0]).toEqual({ pattern: 'Install*', level: 4 });
    expect(plan.custom_queries![0]!.pattern).toBe('*.ts');
  });

  it('names file, line and field of an unknown key', () => {
    const e = errorOf('budget: 100\nverbosity:\n  - pattern: src\n    levle: 2\n');
    expect(e.file).toBe('plan.yaml');
    expect(e.line).toBe(4);
    expect(e.field).toBe('verbosity[0].levle');
    expect(e.message).toContain('unknown key "levle"');
  });

  it('rejects a budget of 0 or below, naming the field and line', () => {
    const e = errorOf('focus: {}\nbudget: 0\n');
    expect(e.field).toBe('budget');
    expect(e.line).toBe(2);
    expect(errorOf('budget: -5\n').message).toContain('budget must be > 0');
  });

  it('rejects a bad glob, a bad level and a rule with both level and sections', () => {
    expect(errorOf('verbosity:\n  - {pattern: "src/[abc", level: 2}\n').message).toContain(
      'invalid glob',
    );
    expect(errorOf('verbosity:\n  - {pattern: "src", level: 7}\n').field).toBe(
      'verbosity[0].level',
    );
    const both = errorOf('verbosity:\n  - pattern: src\n    level: 2\n    sections: []\n');
    expect(both.message).toContain('exactly one');
    expect(errorOf('verbosity:\n  - {pattern: src, level: 2, max_level: 3}\n').message).toContain(
      'exactly one',
    );
    expect(parseFlightPlan('verbosity:\n  - {pattern: src, max_level: 2}\n').verbosity).toEqual([
      { pattern: 'src', max_level: 2 },
    ]);
  });

  it('reports invalid YAML with its line', () => {
    const e = errorOf('budget: 10\nverbosity: [\n');
    expect(e.message).toContain('invalid YAML');
    expect(e.line).toBeGreaterThanOrEqual(2);
  });

  it('validates plans built in code and round-trips them through YAML', () => {
    const ok = validateFlightPlan({ budget: 500, verbosity: [{ pattern: 'a/**', level: 3 }] });
    expect(ok.ok).toBe(true);
    const bad = validateFlightPlan({ budget: 500, extra: true });
    expect(bad).toEqual({ ok: false, error: expect.stringContaining('unknown key "extra"') });
    const plan = parseFlightPlan(GOOD);
    const yaml = flightPlanToYaml(plan, 'made by a test\nsecond line');
    expect(yaml.startsWith('# made by a test\n# second line\n')).toBe(true);
    expect(parseFlightPlan(yaml)).toEqual(plan);
  });
});
