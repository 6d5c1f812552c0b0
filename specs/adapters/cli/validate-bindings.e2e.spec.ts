import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadScenario } from '../../../domain/scenario';
import { readFileSync } from 'node:fs';
import { ENTERPRISE_SCENARIO, PORTAL_PROBE_SCENARIO } from '../../domain/scenario/scenario-fixtures';

const ROOT = join(__dirname, '../../..');
const BIN = join(ROOT, 'adapters/cli/bin.cjs');
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

type BindingRow = {
  participant_address: string;
  tool_affordance_address: string;
  tool_ref: string | null;
  action_contract_address: string;
  observation_boundary_addresses: string[];
  target_addresses: string[];
};

/** `validate --bindings`: what a scenario affords, as the engine compiled it. */
describe('raes-tools validate --bindings', () => {
  it('prints one table row per compiled affordance binding, with its tool_ref', () => {
    const run = cli('validate', PORTAL_PROBE_SCENARIO, '--bindings');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^participant\s+affordance\s+action\s+boundaries\s+targets\s+tool_ref$/);
    expect(lines[1]).toMatch(
      /^participant\.behavior\.participant-agent\s+participant\.behavior-specification\.participant-behavior\.tool-affordance\.portal-client\s+participant\.action-contract\.probe-customer-portal-login\s+participant\.observation-boundary\.participant-view\s+provision\.node\.customer-portal\.service\.http\s+portal-client$/,
    );
    expect(run.stdout).toMatch(/^valid: portal-probe/m);
  });

  it('gives the same bindings in --json as the compiler', () => {
    const run = cli('validate', PORTAL_PROBE_SCENARIO, '--bindings', '--json');
    const printed = JSON.parse(run.stdout) as { bindings?: BindingRow[] };
    const compiled = loadScenario(readFileSync(PORTAL_PROBE_SCENARIO, 'utf8'));
    if (!compiled.ok) throw new Error('the portal-probe example must compile');
    expect(printed.bindings?.map((row) => [row.participant_address, row.tool_affordance_address, row.action_contract_address])).toEqual(
      compiled.compiled.affordanceBindings.map((binding) => [binding.participant_address, binding.tool_affordance_address, binding.action_contract_address]),
    );
    expect(printed.bindings?.[0]?.tool_ref).toBe('portal-client');
  });

  it('says so when a scenario affords no tool action', () => {
    const run = cli('validate', ENTERPRISE_SCENARIO, '--bindings');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^the scenario affords no tool actions$/m);
  });

  it('leaves the bindings out unless asked', () => {
    const run = cli('validate', PORTAL_PROBE_SCENARIO, '--json');
    expect(JSON.parse(run.stdout)).not.toHaveProperty('bindings');
  });
});
