import { isIntegerSource } from './authored-values';
import { Diagnostic, error } from './diagnostics';
import { ScenarioDocument, isVariableRef, portOfText } from './document';

/**
 * The rules RAES 3.3's Node model checks beyond each field's shape (raes/nodes.py): a switch carries none
 * of a VM's fields, a VM binds each protocol and port and each service name once, and a node's RAM and
 * CPU count are not written as floats.
 */


/** A VM's fields and whether RAES counts each as given (Node._populated_vm_only_fields). */
const VM_ONLY_FIELDS: ReadonlyArray<readonly [string, (value: unknown) => boolean]> = [
  ['source', (v) => v !== null],
  ['resources', (v) => v !== null],
  ['os', (v) => v !== null],
  ['os_version', (v) => v !== ''],
  ['features', nonEmpty],
  ['conditions', nonEmpty],
  ['injects', nonEmpty],
  ['vulnerabilities', nonEmpty],
  ['roles', nonEmpty],
  ['services', nonEmpty],
  ['asset_value', (v) => v !== null],
  ['endpoint_persona', (v) => v !== null],
  ['runtime', (v) => v !== null],
];

function nonEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return value !== null && value !== '' && value !== false && value !== 0;
}

export const checkNodes = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [name, node] of Object.entries(scenario.nodes ?? {})) {
    const at = `nodes.${name}`;
    if (node.type === 'switch') {
      const fields = node as Record<string, unknown>;
      const given = VM_ONLY_FIELDS.filter(([field, populated]) => field in fields && populated(fields[field])).map(([field]) => field);
      if (given.length > 0) {
        diagnostics.push(error('scenario.node-invalid', at, `switch node "${name}" has ${given.join(', ')}, which only a VM has: remove ${given.length === 1 ? 'it' : 'them'}, or make the node a vm.`));
      }
    }
    if (node.type === 'vm') {
      // Node.validate_unique_service_ports: a concrete port binds once per protocol; a name names one service.
      const bindings = new Map<string, number>();
      const names = new Map<string, number>();
      (node.services ?? []).forEach((service, i) => {
        const protocol = service.protocol ?? 'tcp';
        if (!isVariableRef(service.port) && !isVariableRef(protocol)) {
          const binding = `${protocol.toLowerCase()}/${typeof service.port === 'number' ? service.port : portOfText(service.port)}`;
          const first = bindings.get(binding);
          if (first !== undefined) {
            diagnostics.push(error('scenario.node-invalid', `${at}.services.${i}`, `node "${name}" binds ${binding} in services ${first} and ${i}: give each service its own port or protocol, or remove one.`));
          } else bindings.set(binding, i);
        }
        if (service.name !== undefined && service.name !== '') {
          const first = names.get(service.name);
          if (first !== undefined) {
            diagnostics.push(error('scenario.node-invalid', `${at}.services.${i}`, `node "${name}" names services ${first} and ${i} both "${service.name}": give each service its own name.`));
          } else names.set(service.name, i);
        }
      });
    }
    (node.services ?? []).forEach((_, i) => {
      const path = `${at}.services.${i}.port`;
      const source = authoredNumbers.get(path);
      if (source !== undefined && !isIntegerSource(source)) {
        diagnostics.push(error('scenario.shape-invalid', path, `expected a whole number at ${path}, got ${source}, which RAES reads as a float: write the port without a fraction or exponent.`));
      }
    });
    for (const field of ['ram', 'cpu']) {
      const path = `${at}.resources.${field}`;
      const source = authoredNumbers.get(path);
      if (source !== undefined && !isIntegerSource(source)) {
        diagnostics.push(error('scenario.shape-invalid', path, `expected a whole number at ${path}, got ${source}, which RAES reads as a float: write it without a fraction or exponent${field === 'ram' ? ', or as a size with a unit such as "4 GiB"' : ''}.`));
      }
    }
  }
  return diagnostics;
};
