import { connectStdio } from '../../../examples/mcp/connect';
import { toolCallMatrix } from './support/tool-call-matrix';

/** AdmittedToolClient with the project's MCP server as a child process over stdio (run with tsx). */
describe('AdmittedToolClient over stdio', () => {
  jest.setTimeout(30_000);
  toolCallMatrix(connectStdio);
});
