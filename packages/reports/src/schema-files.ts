/**
 * Where the JSON Schemas live: `docs/` at the repository root. src/ and dist/ sit at the same
 * depth, so the same relative URL works from both.
 */
export const runReportSchemaUrl = new URL('../../../docs/run-report.schema.json', import.meta.url);
export const turnReportSchemaUrl = new URL(
  '../../../docs/turn-report.schema.json',
  import.meta.url,
);
