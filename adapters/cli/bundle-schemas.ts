import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020';

/**
 * The schemas a bundle's history is checked against offline: RAES's published ones (vendored under
 * schemas/raes/) and the project's extensions of them (schemas/), each extension whole, which includes
 * its RAES base. Read from the package's own files, compiled once on first use; the validator library
 * is loaded then too, not at the start of every command.
 */

const SCHEMAS = resolve(__dirname, '../../schemas');
const read = (file: string): Record<string, unknown> => JSON.parse(readFileSync(resolve(SCHEMAS, file), 'utf8')) as Record<string, unknown>;

export interface HistoryValidators {
  readonly eventStream: ValidateFunction;
  readonly historyView: ValidateFunction;
  readonly operationStatus: ValidateFunction;
}

let compiled: HistoryValidators | undefined;

export const historyValidators = (): HistoryValidators => {
  if (compiled !== undefined) return compiled;
  const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  const ajv = new Ajv2020({ allErrors: false, strict: false });
  addFormats(ajv);
  for (const name of ['participant-behavior-history-event-stream-v1.json', 'participant-history-view-v1.json', 'operation-status-v1.json']) {
    ajv.addSchema(read(`raes/schemas/${name}`));
  }
  const extension = (name: string): ValidateFunction => {
    const schema = read(name);
    return ajv.getSchema(schema.$id as string) ?? ajv.compile(schema);
  };
  compiled = {
    eventStream: extension('invocation-behavior-history-event-stream-v1.json'),
    historyView: extension('invocation-participant-history-view-v1.json'),
    operationStatus: extension('invocation-operation-status-v1.json'),
  };
  return compiled;
};

/** The first schema error of `value`, as "at <path>: <message>", or undefined when it conforms. */
export const schemaError = (validate: ValidateFunction, value: unknown): string | undefined => {
  if (validate(value)) return undefined;
  const error = validate.errors?.[0];
  return error === undefined ? 'does not conform' : `at ${error.instancePath === '' ? '(the document)' : error.instancePath}: ${error.message ?? 'does not conform'}`;
};
