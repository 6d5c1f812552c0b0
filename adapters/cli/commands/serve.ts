import { Command } from 'commander';
import { startAuditPage } from '../../http/audit-page/server';
import { watchFileReplaced } from '../../files/file-replaced';
import { startAuditPageFeed } from '../audit-page-feed';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { openWorkspace } from '../workspace';
import { storeFlagsOf, storeOptions } from '../store-options';
import { chooseEpisode, EPISODE_HELP } from '../episode-choice';

const parsePort = (text: string): number | undefined => {
  if (!/^\d+$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
};

export const registerServe = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('serve')
    .description('read only: the audit page on 127.0.0.1 (invocations on a timeline, tool actions, schedulers), updated live while a run writes')
    .option('--port <n>', 'the port on 127.0.0.1 (0 picks a free one)', '8137')
    .option('--episode <id>', 'the episode the page shows (default: the only one the store holds)');
  storeOptions(command)
    .addHelpText('after', `\nThe page shows one episode. ${EPISODE_HELP}\nThe page follows the log: it gets the whole audit when it opens, then each invocation that changes (open ones too) as its events are read. Ctrl-C stops (exit 0).\nExit codes: 0 stopped, 1 the store or the port failed, 2 usage error.`)
    .action(async (opts: { port: string; episode?: string; store?: string; dataDir?: string }) => {
      const port = parsePort(opts.port);
      if (port === undefined) {
        io.stderr(`raes-tools serve: expected a port number from 0 to 65535 for --port, got '${opts.port}'\n`);
        setExit(EXIT_USAGE);
        return;
      }
      const opened = await openWorkspace(storeFlagsOf(opts), { durable: true, readOnly: true });
      if (!opened.ok) {
        io.stderr(`raes-tools serve: ${opened.message}\n`);
        setExit(opened.usage ? EXIT_USAGE : EXIT_INVALID);
        return;
      }
      const workspace = opened.workspace;
      const chosen = await chooseEpisode(workspace, opts.episode);
      if (!chosen.ok) {
        await workspace.close();
        io.stderr(`raes-tools serve: ${chosen.message}\n`);
        setExit(chosen.exit);
        return;
      }
      const feed = startAuditPageFeed(workspace, chosen.value === undefined ? {} : { episode: chosen.value });
      let server: Awaited<ReturnType<typeof startAuditPage>>;
      try {
        server = await startAuditPage(feed, port);
      } catch (error) {
        await feed.close();
        await workspace.close();
        io.stderr(`raes-tools serve: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}; pick another --port\n`);
        setExit(EXIT_INVALID);
        return;
      }
      io.stdout(`audit page on http://127.0.0.1:${server.port}/ (Ctrl-C stops)\n`);
      // The page shows the store file opened: one removed or replaced under it (a data dir emptied and run again) ends the page.
      let storeGone: string | undefined;
      let stopWatching = (): void => undefined;
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
        if (workspace.storeFile !== undefined) {
          const file = workspace.storeFile;
          stopWatching = watchFileReplaced(file, (how) => {
            storeGone = `the event store file ${file} was ${how} while the page showed it; run \`raes-tools serve\` again to show the store there now`;
            resolve();
          });
        }
      });
      stopWatching();
      await server.close();
      await feed.close();
      await workspace.close();
      if (storeGone !== undefined) io.stderr(`raes-tools serve: ${storeGone}\n`);
      setExit(storeGone === undefined ? EXIT_OK : EXIT_INVALID);
    });
};
