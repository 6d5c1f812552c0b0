/**
 * Diagnostics of scenario and manifest checking. Every code is listed once, here; a search for a code
 * finds the one function that reports it and its spec.
 */
export const DIAGNOSTIC_CODES = [
  // scenario documents
  'scenario.encoding-invalid',
  'scenario.yaml-invalid',
  'scenario.input-out-of-bounds',
  'scenario.aliases-excessive',
  'scenario.shape-invalid',
  'scenario.key-unknown',
  'scenario.name-invalid',
  'scenario.reference-unresolved',
  'scenario.reference-ambiguous',
  'scenario.content-incomplete',
  'scenario.node-invalid',
  'scenario.source-invalid',
  'scenario.view-rule-unclassified',
  'scenario.action-contract-invalid',
  'scenario.observation-boundary-invalid',
  // the shared time model
  'time.model-invalid',
  // tool affordances (docs/rules.md, authoring)
  'participant.tool-affordance-outside-specification',
  'participant.tool-affordance-outside-participant',
  'participant.tool-affordance-relation-duplicate',
  'participant.tool-affordance-view-unclassified',
  'participant.tool-affordance-scope-outside-specification',
  'participant.tool-affordance-without-policy',
  'participant.tool-affordance-tool-unresolved',
  // behavior specifications
  'participant.behavior-specification-term-ungoverned',
  'scenario.behavior-specification-invalid',
  // autonomous policies
  'participant.autonomous-execution-incomplete',
  'participant.autonomous-execution-outside-specification',
  'participant.autonomous-execution-cadence-invalid',
  'participant.autonomous-execution-strategy-invalid',
  'participant.autonomous-progression-clock-mismatch',
  'participant.autonomous-execution-outside-participant',
  'participant.autonomous-execution-progression-invalid',
  'participant.autonomous-execution-evaluation-invalid',
  'participant.autonomous-execution-owner-conflict',
  'participant.autonomous-execution-activity-invalid',
  // manifest documents
  'manifest.encoding-invalid',
  'manifest.json-invalid',
  'manifest.input-out-of-bounds',
  'manifest.shape-invalid',
  'manifest.key-unknown',
  'manifest.offer-duplicate',
  'manifest.implementation-undeclared',
  // claim defects (docs/rules.md, registration)
  'manifest.claim-runtime-method-missing',
  'manifest.claim-autonomous-execution-missing',
  'manifest.claim-tool-affordances-unsupported',
  'manifest.claim-semantic-version-unknown',
  'manifest.claim-limit-invalid',
  'manifest.claim-offer-missing',
] as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  readonly code: DiagnosticCode;
  /** A compiled address when the problem has one, else the document path of the offending value. */
  readonly address: string;
  /** What is wrong and what to change. */
  readonly message: string;
  readonly severity: Severity;
}

export const error = (code: DiagnosticCode, address: string, message: string): Diagnostic => ({
  code,
  address,
  message,
  severity: 'error',
});

export const warning = (code: DiagnosticCode, address: string, message: string): Diagnostic => ({
  code,
  address,
  message,
  severity: 'warning',
});

export const hasErrors = (diagnostics: ReadonlyArray<Diagnostic>): boolean =>
  diagnostics.some((d) => d.severity === 'error');
