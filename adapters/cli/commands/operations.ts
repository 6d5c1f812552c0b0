import { Command } from 'commander';
import { childOperations, getOperation, type OperationStatus } from '../../../projections';
import { catchUpViews } from '../audit-report';
import { chooseEpisode, EPISODE_HELP } from '../episode-choice';
import { shown, table, timeOfDay, toolTail } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace, type StoreFlags } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';

const describe = (operation: OperationStatus): string => {
  const lines: [string, string][] = [
    ['operation', operation.operation_id],
    ['kind', operation.operation_kind === 'outer_action' ? 'outer action (scheduler operation)' : 'tool action (child operation)'],
    ['state', operation.state],
    ['settlement', operation.settlement ?? '-'],
    ['parent', operation.parent_operation_id ?? '-'],
    ['participant', operation.participant_address ?? '-'],
    ['episode', operation.episode_id ?? '-'],
    ['action contract', operation.action_contract_address ?? '-'],
    ['submitted', operation.submitted_at],
    ['updated', operation.updated_at],
  ];
  if (operation.tool_call_id !== null) lines.push(['tool call', operation.tool_call_id]);
  if (operation.admission_ordinal !== null) lines.push(['admission ordinal', String(operation.admission_ordinal)]);
  if (operation.attempt_outcome !== null) lines.push(['attempt outcome', operation.attempt_outcome]);
  for (const diagnostic of operation.diagnostics ?? []) lines.push(['reason', diagnostic.reason]);
  if (operation.resolution !== null) {
    lines.push(['resolution', `effect ${operation.resolution.effect}, evidence ${operation.resolution.evidence_ref}, at ${operation.resolution.resolved_at}`]);
  }
  const width = Math.max(...lines.map(([key]) => key.length));
  return lines.map(([key, value]) => `${key.padEnd(width)}  ${shown(value)}\n`).join('');
};

export const runOperationsGet = async (operationId: string, options: StoreFlags & { readonly json: boolean; readonly episode?: string }, io: CliIo): Promise<number> => {
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools operations get: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  const workspace = opened.workspace;
  try {
    const caught = await catchUpViews(workspace);
    if (!caught.ok) {
      io.stderr(`raes-tools operations get: ${caught.message}\n`);
      return caught.exit;
    }
    const chosen = await chooseEpisode(workspace, options.episode);
    if (!chosen.ok) {
      io.stderr(`raes-tools operations get: ${chosen.message}\n`);
      return chosen.exit;
    }
    const episode = chosen.value;
    const operation = episode === undefined ? undefined : getOperation(workspace.views, episode, operationId);
    if (episode === undefined || operation === undefined) {
      io.stderr(`raes-tools operations get: no operation ${operationId} in ${episode === undefined ? workspace.dataDir : `episode ${episode}`}; \`raes-tools audit\` lists the invocations and tool actions\n`);
      return EXIT_INVALID;
    }
    const children = operation.operation_kind === 'outer_action' ? childOperations(workspace.views, episode, operationId) : [];
    if (options.json) {
      io.stdout(`${JSON.stringify({ operation, child_operations: children }, null, 2)}\n`);
    } else {
      io.stdout(describe(operation));
      if (children.length > 0) {
        io.stdout(
          `\nchild operations\n${table(
            ['action', 'state', 'settlement', 'updated'],
            children.map((child) => [toolTail(child.operation_id), child.state, child.settlement ?? '-', timeOfDay(child.updated_at)]),
          )}`,
        );
      }
    }
    return EXIT_OK;
  } finally {
    await workspace.close();
  }
};

export const registerOperations = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const operations = program.command('operations').description('operations: outer scheduler operations and their tool actions');
  const get = operations
    .command('get')
    .description('print an operation (an outer action instance id, or a tool action id <invocation>:tool=<n>)')
    .argument('<id>', 'operation id')
    .option('--episode <id>', 'the episode the operation belongs to (operation ids repeat across episodes)')
    .option('--json', 'print the operation status (and its child operations) as JSON');
  storeOptions(get)
    .addHelpText('after', `\n${EPISODE_HELP}\nExit codes: 0 found, 1 no such operation or episode (or the store failed), 2 usage error.`)
    .action(async (id: string, opts: { episode?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runOperationsGet(
          id,
          { ...storeFlagsOf(opts), ...(opts.episode === undefined ? {} : { episode: opts.episode }) },
          io,
        ),
      );
    });
};
