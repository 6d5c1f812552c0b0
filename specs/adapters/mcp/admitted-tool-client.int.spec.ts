import { connectInMemory } from '../../../examples/mcp/connect';
import { toolCallMatrix } from './support/tool-call-matrix';

/** AdmittedToolClient with the project's MCP server in this process, over InMemoryTransport. */
describe('AdmittedToolClient over InMemoryTransport', () => {
  toolCallMatrix(connectInMemory);
});
