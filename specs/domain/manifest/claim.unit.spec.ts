import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { isLeft, isRight } from 'fp-ts/Either';
import { checkManifest, loadManifestDocument, registerRuntime } from '../../../domain/manifest';
import { DIAGNOSTIC_CODES, Diagnostic } from '../../../domain/scenario';
import { PORTAL_PROBE_MANIFEST, Yaml, portalProbeManifest } from '../scenario/scenario-fixtures';
import { claimingRuntime, compiledPortalProbe, manifestWith } from './manifest-fixtures';

const compiled = compiledPortalProbe();
const runtime = (doc: Yaml) => doc.participant_runtime;
const claim = (doc: Yaml) => runtime(doc).invocation_tool_actions;

const decodeDiagnostics = (doc: Yaml | string): ReadonlyArray<Diagnostic> => {
  const decoded = loadManifestDocument(typeof doc === 'string' ? doc : JSON.stringify(doc));
  return isLeft(decoded) ? decoded.left : [];
};
const manifestDiagnostics = (edit: (doc: Yaml) => void): ReadonlyArray<Diagnostic> =>
  checkManifest(manifestWith(edit), compiled);

/** One defect per manifest diagnostic code; the runtime method is judged at registration. */
const cases: Record<string, { readonly diagnostics: () => ReadonlyArray<Diagnostic>; readonly address: string; readonly message: RegExp }> = {
  'manifest.encoding-invalid': { diagnostics: () => decodeDiagnostics('{"backend": "caf\udce9"}'), address: 'line 1, column 17', message: /not valid UTF-8 text .*save the file as UTF-8/ },
  'manifest.json-invalid': { diagnostics: () => decodeDiagnostics('{"backend": '), address: '(document)', message: /not valid JSON/ },
  'manifest.input-out-of-bounds': {
    diagnostics: () => decodeDiagnostics(`{"a": ${'['.repeat(65)}${']'.repeat(65)}}`),
    address: '(document)',
    message: /nests deeper than 64 levels at line 1: flatten it/,
  },
  'manifest.shape-invalid': {
    diagnostics: () => {
      const doc = portalProbeManifest();
      runtime(doc).execution_bindings[0].timeout_seconds = 0;
      return decodeDiagnostics(doc);
    },
    address: 'participant_runtime.execution_bindings.0.timeout_seconds',
    message: /expected an integer from 1 to 86400 at participant_runtime\.execution_bindings\.0\.timeout_seconds, got 0/,
  },
  'manifest.key-unknown': {
    diagnostics: () => {
      const doc = portalProbeManifest();
      claim(doc).max_tools = 3;
      return decodeDiagnostics(doc);
    },
    address: 'participant_runtime.invocation_tool_actions.max_tools',
    message: /unknown key "max_tools"/,
  },
  'manifest.offer-duplicate': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        runtime(doc).execution_bindings.push({ ...runtime(doc).execution_bindings[0], binding_id: 'portal-probe-http-2' });
      }),
    address: 'participant_runtime.execution_bindings.1',
    message: /repeats the action contract .* of offer "portal-probe-http": declare one offer per tool action contract and implementation/,
  },
  'manifest.implementation-undeclared': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        runtime(doc).participant_implementations = [];
      }),
    address: 'participant.autonomous-execution.participant-behavior',
    message: /implementation "participant-agent-runner", which participant_runtime\.participant_implementations does not declare/,
  },
  'manifest.claim-runtime-method-missing': {
    diagnostics: () => {
      const registration = registerRuntime({ admitAction: claimingRuntime.admitAction }, manifestWith(() => undefined), compiled);
      return registration.attachPort || registration.reason === 'unclaimed' ? [] : registration.diagnostics;
    },
    address: 'participant_runtime.invocation_tool_actions',
    message: /has no attachInvocationToolActions\(port\) method/,
  },
  'manifest.claim-autonomous-execution-missing': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        runtime(doc).supports_autonomous_execution = false;
      }),
    address: 'participant_runtime.invocation_tool_actions',
    message: /requires autonomous execution/,
  },
  'manifest.claim-tool-affordances-unsupported': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        runtime(doc).feature_support[1].support_level = 'unsupported';
      }),
    address: 'participant_runtime.invocation_tool_actions',
    message: /requires positive tool_affordances support, found "unsupported"/,
  },
  'manifest.claim-semantic-version-unknown': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        claim(doc).semantic_versions = ['participant-invocation-tool-actions/v2'];
      }),
    address: 'participant_runtime.invocation_tool_actions.semantic_versions',
    message: /unknown semantic version "participant-invocation-tool-actions\/v2": claim \["participant-invocation-tool-actions\/v1"\]/,
  },
  'manifest.claim-limit-invalid': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        claim(doc).max_concurrent_tool_actions_per_invocation = 0;
      }),
    address: 'participant_runtime.invocation_tool_actions.max_concurrent_tool_actions_per_invocation',
    message: /must be an integer from 1 to 1024, got 0/,
  },
  'manifest.claim-offer-missing': {
    diagnostics: () =>
      manifestDiagnostics((doc) => {
        runtime(doc).execution_bindings[0].participant_implementation_ref = 'another-runner';
      }),
    address: 'participant.action-contract.probe-customer-portal-login',
    message: /has no execution-binding offer for implementation "participant-agent-runner"/,
  },
};

describe('the example manifest', () => {
  it('decodes and has no defect against the example scenario', () => {
    const decoded = loadManifestDocument(readFileSync(PORTAL_PROBE_MANIFEST, 'utf8'));
    expect(isRight(decoded)).toBe(true);
    if (isRight(decoded)) expect(checkManifest(decoded.right, compiled)).toEqual([]);
  });

  it('offers execution bindings valid against participant-execution-binding-v1', () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'raes', 'schemas', 'participant-execution-binding-v1.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const offers: Yaml[] = runtime(portalProbeManifest()).execution_bindings;
    expect(offers.length).toBeGreaterThan(0);
    for (const offer of offers) expect({ offer, errors: validate(offer) ? null : validate.errors }).toEqual({ offer, errors: null });
  });

  it('rejects what the binding schema rejects: an offer without evidence refs', () => {
    const doc = portalProbeManifest();
    runtime(doc).execution_bindings[0].evidence_refs = [];
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'raes', 'schemas', 'participant-execution-binding-v1.json'), 'utf8'));
    expect(new Ajv2020({ strict: false }).validate(schema, runtime(doc).execution_bindings[0])).toBe(false);
    expect(decodeDiagnostics(doc).map((d) => d.address)).toEqual(['participant_runtime.execution_bindings.0.evidence_refs']);
  });
});

describe('one defect per manifest diagnostic code', () => {
  it('covers every manifest code', () => {
    expect(Object.keys(cases).sort()).toEqual(DIAGNOSTIC_CODES.filter((c) => c.startsWith('manifest.')).sort());
  });

  it.each(Object.entries(cases))('%s', (code, { diagnostics, address, message }) => {
    const found = diagnostics().filter((d) => d.code === code);
    expect(found).toHaveLength(1);
    expect(found[0]?.address).toBe(address);
    expect(found[0]?.message).toMatch(message);
    expect(found[0]?.severity).toBe('error');
  });
});

describe('claim defects', () => {
  it('counts a tool_affordances feature that is missing as unsupported', () => {
    const found = manifestDiagnostics((doc) => {
      runtime(doc).feature_support = [];
    });
    expect(found.map((d) => [d.code, d.message])).toEqual([
      ['manifest.claim-tool-affordances-unsupported', expect.stringContaining('found none')],
    ]);
  });

  it.each(['disclosed_weak', 'bounded', 'exact'])('accepts %s tool_affordances support as positive', (level) => {
    expect(manifestDiagnostics((doc) => (runtime(doc).feature_support[1].support_level = level))).toEqual([]);
  });

  it('requires autonomous_execution among the supported behavior features', () => {
    const found = manifestDiagnostics((doc) => {
      runtime(doc).supported_behavior_features = ['tool_affordances'];
    });
    expect(found.map((d) => d.code)).toEqual(['manifest.claim-autonomous-execution-missing']);
  });

  it.each([[1.5], ['16'], [null], [-1]])('refuses the limit %p', (limit) => {
    const found = manifestDiagnostics((doc) => {
      claim(doc).max_tool_actions_per_invocation = limit;
    });
    expect(found.map((d) => [d.code, d.address])).toEqual([
      ['manifest.claim-limit-invalid', 'participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation'],
    ]);
  });

  it('refuses an empty list of semantic versions', () => {
    const found = manifestDiagnostics((doc) => {
      claim(doc).semantic_versions = [];
    });
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/^no semantic version is claimed/)]);
  });

  it('reports every defect together', () => {
    const found = manifestDiagnostics((doc) => {
      runtime(doc).supports_autonomous_execution = false;
      runtime(doc).feature_support = [];
      claim(doc).semantic_versions = ['v0'];
      claim(doc).max_tool_actions_per_invocation = 0;
      runtime(doc).execution_bindings = [];
    });
    expect(found.map((d) => d.code)).toEqual([
      'manifest.claim-autonomous-execution-missing',
      'manifest.claim-tool-affordances-unsupported',
      'manifest.claim-semantic-version-unknown',
      'manifest.claim-limit-invalid',
      'manifest.claim-offer-missing',
    ]);
  });

  it('finds no claim defects in a manifest that makes no claim', () => {
    const found = manifestDiagnostics((doc) => {
      delete runtime(doc).invocation_tool_actions;
      runtime(doc).supports_autonomous_execution = false;
      runtime(doc).feature_support = [];
      runtime(doc).execution_bindings = [];
    });
    expect(found).toEqual([]);
  });
});
