import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** RAES's published schemas and the project's extensions, compiled once. */
const repoRoot = path.resolve(__dirname, '../../..');
const readJson = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(file, 'utf8'));
const raes = (name: string) => readJson(path.resolve(repoRoot, 'schemas/raes/schemas', name));
const project = (name: string) => readJson(path.resolve(repoRoot, 'schemas', name));

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(raes('participant-behavior-history-event-stream-v1.json'));
ajv.addSchema(raes('participant-history-view-v1.json'));
ajv.addSchema(raes('operation-status-v1.json'));
ajv.addSchema(project('invocation-behavior-history-event-stream-v1.json'));

const compile = (schema: Record<string, unknown>): ValidateFunction => {
  const id = schema.$id as string;
  return ajv.getSchema(id) ?? ajv.compile(schema);
};

export const validators = {
  raesEventStream: compile(raes('participant-behavior-history-event-stream-v1.json')),
  eventStreamExtension: compile(project('invocation-behavior-history-event-stream-v1.json')),
  raesHistoryView: compile(raes('participant-history-view-v1.json')),
  historyViewExtension: compile(project('invocation-participant-history-view-v1.json')),
  raesOperationStatus: compile(raes('operation-status-v1.json')),
  operationStatusExtension: () => compile(project('invocation-operation-status-v1.json')),
  schedulerStatus: () => compile(project('scheduler-status-v1.json')),
};

/** Validation errors as a list, so a failing spec shows which field broke which rule. */
export const errorsOf = (validate: ValidateFunction, value: unknown): readonly string[] =>
  validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
