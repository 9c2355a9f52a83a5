import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export const repoRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
);

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Compiles a JSON Schema from docs/ with ajv in its default strict mode; any warning fails,
 * so the schema stays loadable by a strict draft-07 validator.
 */
export function compileDocSchema(file: string): ValidateFunction {
  const schema: unknown = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs', file), 'utf8'));
  const fail = (...args: unknown[]): never => {
    throw new Error(`ajv warning for ${file}: ${args.map(String).join(' ')}`);
  };
  const ajv = new Ajv({ allErrors: true, logger: { log: fail, warn: fail, error: fail } });
  addFormats(ajv);
  return ajv.compile(schema as object);
}

/** Validates and returns ajv's errors as text ('' when valid), for readable assertions. */
export function schemaErrors(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : JSON.stringify(validate.errors, null, 1);
}
