import { isLeft } from 'fp-ts/Either';
import { checkManifest, claimLimits, loadManifestDocument } from '../../../domain/manifest';
import { loadScenario } from '../../../domain/scenario';
import { Yaml, portalProbeManifest, portalProbeWith } from '../scenario/scenario-fixtures';
import { compiledPortalProbe, manifestWith } from './manifest-fixtures';

/** Limits and counts have upper bounds: an absurd claim is a diagnostic, not a valid value. */
const policy = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'].autonomous_execution;
const claim = (doc: Yaml): Yaml => doc.participant_runtime.invocation_tool_actions;

describe('upper bounds of scenario counts', () => {
  it.each([
    ['max_action_attempts', 1e300, 'an integer from 1 to 1000000'],
    ['max_in_flight', 1025, 'an integer from 1 to 1024'],
  ])('refuses autonomous_execution.%s = %d', (field, value, expected) => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        policy(doc)[field] = value;
      }),
    );
    expect(result.ok).toBe(false);
    const address = `behavior_specifications.participant-behavior.autonomous_execution.${field}`;
    const found = result.diagnostics.filter((d) => d.address === address);
    expect(found.map((d) => d.code)).toEqual(['scenario.shape-invalid']);
    expect(found[0]?.message).toContain(`expected ${expected} at ${address}, got ${JSON.stringify(value)}`);
  });

  it('accepts the bound itself', () => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        policy(doc).max_action_attempts = 1_000_000;
      }),
    );
    expect(result.diagnostics).toEqual([]);
  });
});

describe('service ports, bounded as RAES bounds them', () => {
  const withPort = (port: unknown) =>
    loadScenario(
      portalProbeWith((doc) => {
        doc.nodes['customer-portal'].services[0].port = port;
      }),
    );

  it.each([[1e300], [0], [65_536], ['70000'], [8080.5], ['http'], [true]])('refuses port %p', (port) => {
    const result = withPort(port);
    expect(result.ok).toBe(false);
    const address = 'nodes.customer-portal.services.0.port';
    expect(result.diagnostics.map((d) => [d.code, d.address])).toEqual([['scenario.shape-invalid', address]]);
    expect(result.diagnostics[0]?.message).toContain(`expected a port from 1 to 65535 (or a \${variable} placeholder) at ${address}`);
  });

  it.each([[1], [65_535], ['8080'], ['${portal.port}']])('accepts port %p', (port) => {
    expect(withPort(port).diagnostics).toEqual([]);
  });
});

describe('upper bounds of manifest limits', () => {
  it('reports a claim of 1e300 tool actions per invocation and derives no limits from it', () => {
    const manifest = manifestWith((doc) => {
      claim(doc).max_tool_actions_per_invocation = 1e300;
    });
    const found = checkManifest(manifest, compiledPortalProbe()).filter((d) => d.code === 'manifest.claim-limit-invalid');
    expect(found.map((d) => d.address)).toEqual(['participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation']);
    expect(found[0]?.message).toMatch(/must be an integer from 1 to 10000, got 1e\+300/);
    expect(claimLimits(manifest)).toBeUndefined();
  });

  it('keeps a claim at the bound', () => {
    const manifest = manifestWith((doc) => {
      claim(doc).max_tool_actions_per_invocation = 10_000;
    });
    expect(checkManifest(manifest, compiledPortalProbe()).filter((d) => d.code === 'manifest.claim-limit-invalid')).toEqual([]);
    expect(claimLimits(manifest)?.max_tool_actions_per_invocation).toBe(10_000);
  });

  it('refuses an execution binding timeout above one day at decoding', () => {
    const doc = portalProbeManifest();
    doc.participant_runtime.execution_bindings[0].timeout_seconds = 86_401;
    const decoded = loadManifestDocument(JSON.stringify(doc));
    expect(isLeft(decoded)).toBe(true);
    const diagnostics = isLeft(decoded) ? decoded.left : [];
    expect(diagnostics.map((d) => d.message)).toEqual([
      'expected an integer from 1 to 86400 at participant_runtime.execution_bindings.0.timeout_seconds, got 86401.',
    ]);
  });
});
