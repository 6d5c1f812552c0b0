import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A real SDK server (the low-level `Server`) whose tools exercise the client's edges: `task_only`
 * (execution.taskSupport 'required'), `bad_output` (an output schema its result breaks), `slow_progress`
 * (runs PROGRESS_STEPS x PROGRESS_EVERY_MS, reporting progress each step), `echo`, and `calls` (how many
 * calls of each tool arrived). tools/list pages PAGE_SIZE tools at a time. Run as a script, it serves
 * on stdio.
 */

export const PAGE_SIZE = 2;
export const PROGRESS_STEPS = 6;
export const PROGRESS_EVERY_MS = 150;

const OPEN_INPUT = { type: 'object' as const, properties: {} };

export const FIDELITY_TOOLS: readonly Tool[] = [
  { name: 'echo', description: 'Answers with the text it was given.', inputSchema: OPEN_INPUT },
  { name: 'task_only', description: 'Runs only as a task.', inputSchema: OPEN_INPUT, execution: { taskSupport: 'required' } },
  {
    name: 'bad_output',
    description: 'Answers with structured content its output schema does not allow.',
    inputSchema: OPEN_INPUT,
    outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
  },
  { name: 'slow_progress', description: 'Runs a while, reporting progress.', inputSchema: OPEN_INPUT },
  { name: 'calls', description: 'How many calls of each tool arrived.', inputSchema: OPEN_INPUT },
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

export const createFidelityServer = (): { server: Server; callsOf(tool: string): number } => {
  const counts = new Map<string, number>();
  const server = new Server({ name: 'fidelity-tools', version: '1.0.0' }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    const page = FIDELITY_TOOLS.slice(start, start + PAGE_SIZE);
    const next = start + PAGE_SIZE;
    return next < FIDELITY_TOOLS.length ? { tools: [...page], nextCursor: String(next) } : { tools: [...page] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    switch (name) {
      case 'echo':
        return text(String(request.params.arguments?.text ?? ''));
      case 'task_only':
        return text('ran without a task');
      case 'bad_output':
        return { content: [{ type: 'text', text: 'counted' }], structuredContent: { count: 'not a number' } };
      case 'slow_progress': {
        const token = request.params._meta?.progressToken;
        for (let step = 1; step <= PROGRESS_STEPS; step++) {
          await sleep(PROGRESS_EVERY_MS);
          if (token !== undefined) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: PROGRESS_STEPS } });
          }
        }
        return text('done');
      }
      case 'calls':
        return text(JSON.stringify(Object.fromEntries(counts)));
      default:
        return { isError: true, content: [{ type: 'text', text: `no tool ${name}` }] };
    }
  });
  return { server, callsOf: (tool) => counts.get(tool) ?? 0 };
};

if (require.main === module) {
  void createFidelityServer().server.connect(new StdioServerTransport());
}
