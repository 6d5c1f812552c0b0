import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * A node's resources and endpoint persona, and what a switch may carry, as RAES 3.3's Node model types and
 * checks them (raes/nodes.py, raes/runtime_values.py parse_ram, raes/_base.py parse_int_or_var and
 * parse_enum_or_var). Every refusal and acceptance below was checked against RAES's own models.
 */

const NAME = 'red-workbench';
const AT = `nodes.${NAME}`;
const node = (doc: Yaml): Yaml => doc.nodes[NAME];
const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const errorsOf = (edit: (n: Yaml, doc: Yaml) => void) => errorsOfText(portalProbeWith((doc) => edit(node(doc), doc)));
const resources = (ram: unknown, cpu: unknown) => errorsOf((n) => (n.resources = { ram, cpu }));
/** The example with resources whose RAM or CPU is written as given (a number as RAES's YAML reads it). */
const resourcesWritten = (ram: string, cpu: string) => {
  const text = portalProbeWith((doc) => (node(doc).resources = { ram: 1234567, cpu: 7654321 }));
  const written = text.replace('ram: 1234567\n', `ram: ${ram}\n`).replace('cpu: 7654321\n', `cpu: ${cpu}\n`);
  expect(written).not.toEqual(text);
  return errorsOfText(written);
};
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);

describe("a node's resources", () => {
  it('takes RAM in bytes or as a size with a unit, and a CPU count, as numbers or texts, and null for absent', () => {
    for (const [ram, cpu] of [
      ['4 GiB', 2],
      ['4.5gib', ' 2 '],
      ['512', '\uff12'],
      ['\u0085 4 kib\u0085', 1],
      ['\uff14 GiB', 1],
      ['4 \u212aiB', 1],
      [1, 1],
    ]) {
      expect(resources(ram, cpu)).toEqual([]);
    }
    expect(errorsOf((n) => (n.resources = null))).toEqual([]);
    expect(
      errorsOf((n, doc) => {
        doc.variables = { ram: { type: 'string', default: '4 GiB' }, cpu: { type: 'integer', default: 2 }, persona: { type: 'string', default: 'service' } };
        n.resources = { ram: '${ram}', cpu: '${cpu}' };
        n.endpoint_persona = '${persona}';
      }),
    ).toEqual([]);
  });

  it('refuses RAM below one byte, without a known unit, a flag, or with U+FEFF (not white space to Python)', () => {
    const ram = (value: unknown) => [shape('resources.ram', `expected a number of bytes from 1, or a size with a unit such as "4 GiB" (or a \${variable} placeholder) at ${AT}.resources.ram`)];
    for (const value of [0, '0.5 b', '4 gbx', true, '\ufeff4 kib', '4 k\u0131b']) expect(resources(value, 1)).toEqual(ram(value));
  });

  it('refuses a CPU count below 1, signed with +, or a flag', () => {
    for (const value of [0, '-1', '+2', true]) {
      expect(resources(1, value)).toEqual([shape('resources.cpu', `expected an integer from 1 (or a \${variable} placeholder) at ${AT}.resources.cpu`)]);
    }
  });

  it('refuses RAM or a CPU count written as a float', () => {
    expect(resourcesWritten('2.0', '1')).toEqual([
      shape('resources.ram', `expected a whole number at ${AT}.resources.ram, got 2.0, which RAES reads as a float: write it without a fraction or exponent, or as a size with a unit such as "4 GiB".`),
    ]);
    expect(resourcesWritten('1', '1e0')).toEqual([shape('resources.cpu', `expected a whole number at ${AT}.resources.cpu, got 1e0, which RAES reads as a float`)]);
    expect(resourcesWritten('0x400', '2')).toEqual([]);
  });

  it('requires ram and cpu and no other key', () => {
    expect(errorsOf((n) => (n.resources = { ram: 1 }))).toEqual([shape('resources.cpu', 'missing required field')]);
    expect(errorsOf((n) => (n.resources = { ram: 1, cpu: 1, gpu: 1 }))).toEqual([
      { code: 'scenario.key-unknown', address: `${AT}.resources.gpu`, message: expect.stringContaining('unknown key "gpu"') },
    ]);
  });
});

describe("a node's endpoint persona", () => {
  it('takes a persona as RAES matches enums (case, "-" for "_"), or null', () => {
    expect(errorsOf((n) => (n.endpoint_persona = 'Privileged-Admin'))).toEqual([]);
    expect(errorsOf((n) => (n.endpoint_persona = null))).toEqual([]);
  });

  it('refuses another word or a number', () => {
    for (const value of ['boss', 5]) {
      expect(errorsOf((n) => (n.endpoint_persona = value))).toEqual([shape('endpoint_persona', 'expected one of workforce, engineering, privileged_admin, participant, service, carrier')]);
    }
  });
});

describe('a switch', () => {
  const errorsOfSwitch = (fields: Yaml) => errorsOf((n, doc) => (doc.nodes['core-switch'] = { type: 'switch', ...fields }));

  it("refuses a VM's fields on a switch", () => {
    expect(errorsOfSwitch({ endpoint_persona: 'service' })).toEqual([
      { code: 'scenario.node-invalid', address: 'nodes.core-switch', message: 'switch node "core-switch" has endpoint_persona, which only a VM has: remove it, or make the node a vm.' },
    ]);
    expect(errorsOfSwitch({ os: 'linux', features: ['hardening'], services: [{ port: 22 }], resources: { ram: 1, cpu: 1 } })).toEqual([
      {
        code: 'scenario.node-invalid',
        address: 'nodes.core-switch',
        message: 'switch node "core-switch" has resources, os, features, services, which only a VM has: remove them, or make the node a vm.',
      },
    ]);
  });

  it("takes a switch whose VM fields are null or empty", () => {
    expect(errorsOfSwitch({})).toEqual([]);
    expect(errorsOfSwitch({ os: null, services: [], os_version: '', resources: null, endpoint_persona: null })).toEqual([]);
  });
});

describe("a VM's services", () => {
  it('binds each protocol and port once, protocols compared without regard to case, ports as RAES reads them', () => {
    expect(errorsOf((n) => n.services.push({ name: 'ssh-alt', port: 22, protocol: 'TCP' }))).toEqual([
      { code: 'scenario.node-invalid', address: `${AT}.services.1`, message: `node "${NAME}" binds tcp/22 in services 0 and 1: give each service its own port or protocol, or remove one.` },
    ]);
    expect(errorsOf((n) => n.services.push({ port: '22' }))).toEqual([
      { code: 'scenario.node-invalid', address: `${AT}.services.1`, message: `node "${NAME}" binds tcp/22 in services 0 and 1: give each service its own port or protocol, or remove one.` },
    ]);
    expect(
      errorsOf((n, doc) => {
        doc.variables = { port: { type: 'integer', default: 2222 } };
        n.services.push({ name: 'ssh-udp', port: 22, protocol: 'udp' }, { port: '${port}' }, { port: '${port}' });
      }),
    ).toEqual([]);
  });

  it('names each service once', () => {
    expect(errorsOf((n) => n.services.push({ name: 'ssh', port: 2222 }))).toEqual([
      { code: 'scenario.node-invalid', address: `${AT}.services.1`, message: `node "${NAME}" names services 0 and 1 both "ssh": give each service its own name.` },
    ]);
  });
});

describe("a service's port", () => {
  const port = (value: unknown) => errorsOf((n) => (n.services[0].port = value));

  it('takes a text of digits of any script with Python\'s white space around it', () => {
    expect(port('\u0085 22')).toEqual([]);
    expect(port('\uff12\uff12')).toEqual([]);
  });

  it('refuses a text with U+FEFF (not white space to Python) or a sign +, and a port written as a float', () => {
    for (const value of ['\ufeff22', ' +22']) expect(port(value)).toEqual([shape('services.0.port', 'expected a port from 1 to 65535')]);
    const text = portalProbeWith((doc) => (node(doc).services[0].port = 2222));
    const written = text.replace('port: 2222', 'port: 22.0');
    expect(written).not.toEqual(text);
    expect(errorsOfText(written)).toEqual([
      shape('services.0.port', `expected a whole number at ${AT}.services.0.port, got 22.0, which RAES reads as a float: write the port without a fraction or exponent.`),
    ]);
  });
});

describe("a node's other fields", () => {
  it('takes an os as RAES matches enums, login roles as a username or a mapping, and an asset value', () => {
    expect(
      errorsOf((n) => {
        n.os = 'Linux';
        n.os_version = '22.04';
        n.description = 'The red team workbench.';
        n.roles = { admin: 'root', operator: { username: 'op', entities: ['portal-prober'] } };
        n.asset_value = { confidentiality: 'High' };
      }),
    ).toEqual([]);
    expect(errorsOf((n) => Object.assign(n, { os: null, asset_value: null }))).toEqual([]);
  });

  it('refuses an os that is not a text, texts that are not texts, and names or role names that are not texts', () => {
    expect(errorsOf((n) => (n.os = 5))).toEqual([shape('os', 'expected one of windows, linux, macos, freebsd, other')]);
    expect(errorsOf((n) => (n.os_version = 5))).toEqual([shape('os_version', 'expected a string')]);
    expect(errorsOf((n) => (n.description = null))).toEqual([shape('description', 'expected a string')]);
    for (const features of [{ hardening: 5 }, [5], 'x']) {
      expect(errorsOf((n) => (n.features = features))).toEqual([shape('features', 'expected a mapping of names to role names, or a list of names')]);
    }
    expect(errorsOf((n) => (n.vulnerabilities = [5]))).toEqual([shape('vulnerabilities.0', 'expected a string')]);
  });

  it('refuses a role named other than by a portable identifier, without a username, or neither text nor mapping', () => {
    expect(errorsOf((n) => (n.roles = { Admin: 'root' }))).toEqual([shape('roles.Admin', `the name "Admin" at ${AT}.roles.Admin is not a portable identifier`)]);
    expect(errorsOf((n) => (n.roles = { admin: { entities: [] } }))).toEqual([shape('roles.admin.username', 'missing required field')]);
    expect(errorsOf((n) => (n.roles = { admin: 5 }))).toEqual([shape('roles.admin', 'expected a username, or a mapping (Role) with a username')]);
  });

  it('refuses an asset value level RAES does not list', () => {
    expect(errorsOf((n) => (n.asset_value = { confidentiality: 'extreme' }))).toEqual([shape('asset_value.confidentiality', 'expected one of none, low, medium, high, critical')]);
  });
});
