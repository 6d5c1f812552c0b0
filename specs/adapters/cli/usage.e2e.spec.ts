import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, cliWithEnv, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(120_000);

const COMMANDS: readonly (readonly string[])[] = [
  ['run'],
  ['audit'],
  ['export'],
  ['operations'],
  ['operations', 'get'],
  ['recover'],
  ['resolve'],
  ['scheduler'],
  ['scheduler', 'restart'],
  ['scheduler', 'list'],
  ['projections'],
  ['projections', 'rebuild'],
  ['demo'],
  ['validate'],
  ['telemetry', 'export'],
];

describe('raes-tools --help', () => {
  it('lists every command', () => {
    const run = cli('--help');
    expect(run.status).toBe(0);
    for (const name of ['validate', 'run', 'audit', 'export', 'operations', 'recover', 'resolve', 'scheduler', 'projections', 'demo', 'telemetry', 'serve', 'keys', 'verify']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it.each(COMMANDS.map((command) => [command.join(' '), command]))('explains %s, exit 0', (_, command) => {
    const run = cli(...command, '--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: raes-tools ${command.join(' ')}`, 'm'));
  });

  it('says how --episode picks the episode, on every command that works on one', () => {
    for (const command of [['audit'], ['operations', 'get'], ['recover'], ['resolve'], ['scheduler', 'restart'], ['scheduler', 'list'], ['export']]) {
      const help = cli(...command, '--help').stdout;
      expect(help).toMatch(/--episode <id>/);
      expect(help).toMatch(/The store may hold many episodes: --episode <id> says which; without it, the only episode the store holds \(with several, a usage error lists them\)/);
    }
    expect(cli('run', '--help').stdout).toMatch(/--episode <id> +the episode to start or continue/);
    expect(cli('projections', 'rebuild', '--help').stdout).toMatch(/every episode/);
  });

  it('states the exit codes of every leaf command', () => {
    for (const command of COMMANDS.filter((c) => !['operations', 'scheduler', 'projections'].includes(c.join(' ')))) {
      expect(cli(...command, '--help').stdout).toMatch(/Exit codes: 0 /);
    }
  });
});

describe('raes-tools usage errors: exit 2, one line, no stack trace', () => {
  const empty = scratchDir('usage');
  const actionId = 'participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:1:tool=1';

  it.each([
    ['run without a manifest', ['run', SCENARIO], /required option '-m, --manifest <manifest>' not specified/],
    ['run with --ticks 0', ['run', SCENARIO, '-m', MANIFEST, '--ticks', '0'], /expected a whole number >= 1 for --ticks, got '0'/],
    ['run with an unknown harness', ['run', SCENARIO, '-m', MANIFEST, '--harness', 'llm'], /Allowed choices are scripted, mcp/],
    ['run with an unknown store', ['run', SCENARIO, '-m', MANIFEST, '--store', 'mysql'], /Allowed choices are sqlite, memory, eventstoredb, postgres/],
    ['run with a missing scenario file', ['run', join(empty, 'absent.yaml'), '-m', MANIFEST, '--data-dir', empty], /cannot read scenario file ".*absent\.yaml": no such file/],
    ['resolve with an unknown effect', ['resolve', actionId, '--effect', 'maybe', '--evidence', 'x'], /Allowed choices are happened, absent/],
    ['resolve without evidence', ['resolve', actionId, '--effect', 'absent'], /required option '--evidence <ref>' not specified/],
    ['an unknown projection', ['projections', 'rebuild', 'everything', '--data-dir', empty], /no projection is named 'everything'; expected one of open-invocations, participant-history, operations, schedulers, scheduler-snapshots/],
    ['audit on the memory store', ['audit', '--store', 'memory', '--data-dir', empty], /the memory store keeps nothing between commands/],
    ['eventstoredb without a connection string', ['audit', '--store', 'eventstoredb', '--data-dir', empty], /ESDB_CONNECTION_STRING/],
    ['postgres without a connection string', ['audit', '--store', 'postgres', '--data-dir', empty], /expected a postgres:\/\/ connection string at --postgres-url or RAES_POSTGRES_URL/],
    ['postgres with another kind of URL', ['audit', '--store', 'postgres', '--postgres-url', 'mysql://db/x', '--data-dir', empty], /expected a postgres:\/\/ or postgresql:\/\/ connection string/],
    ['postgres with a port past 65535', ['audit', '--store', 'postgres', '--postgres-url', 'postgres://u:secret@db:70000/x', '--data-dir', empty], /cannot be read as a URL, got 'postgres:\/\/u:\*\*\*@db:70000\/x': a port is 1 to 65535/],
    ['export to an empty --out', ['export', '--data-dir', empty, '--out', ''], /--out is empty: name the file to write/],
    ['recover where nothing ran', ['recover', '--data-dir', empty], /nothing has run in .* \(no episode in its store, no job in jobs\/\): run `raes-tools run <scenario> --manifest <m>/],
    ['an --episode that cannot be an episode id', ['audit', '--data-dir', empty, '--episode', 'a/b'], /expected an episode id at --episode .*, got 'a\/b'/],
    ['run with an --episode that cannot be an episode id', ['run', SCENARIO, '-m', MANIFEST, '--data-dir', empty, '--episode', 'two words'], /expected an episode id at --episode/],
    ['an unknown subcommand', ['scheduler', 'stop', 'x'], /unknown command 'stop'/],
    ['no command', [], /Usage: raes-tools/],
  ])('%s', (_, args, message) => {
    const run = cli(...(args as string[]));
    expect(run.status).toBe(2);
    expect(`${run.stderr}${run.stdout}`).toMatch(message as RegExp);
    expect(withoutStack(run)).toBe(true);
  });

  it('a malformed EventStoreDB connection string', () => {
    const run = cliWithEnv({ ESDB_CONNECTION_STRING: 'localhost:2113' }, 'audit', '--store', 'eventstoredb', '--data-dir', empty);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^raes-tools audit: the event store settings are unusable \(see ESDB_CONNECTION_STRING\): .*esdb:\/\//);
    expect(withoutStack(run)).toBe(true);
  });

  it('an invalid scenario is a failed check: exit 1 with its diagnostics', () => {
    const run = cli('run', MANIFEST, '-m', MANIFEST, '--data-dir', empty);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^raes-tools run: the scenario and manifest do not check/);
    expect(withoutStack(run)).toBe(true);
  });
});

describe('raes-tools --json on a failure', () => {
  const nowhere = join(scratchDir('json-failures'), 'never-ran');
  it.each([
    ['a usage error', ['audit', '--json', '--no-such-flag'], 2, "unknown option '--no-such-flag'"],
    ['a missing scenario file', ['validate', join(nowhere, 'missing.yaml'), '--json'], 2, 'cannot read scenario file'],
    ['a data dir nothing ran in', ['audit', '--data-dir', nowhere, '--json'], 1, 'does not exist: nothing has run there'],
    ['a run refused before it starts', ['run', MANIFEST, '-m', MANIFEST, '--data-dir', nowhere, '--json'], 1, 'the scenario and manifest do not check'],
  ])('prints the error as JSON on stdout, and its message on stderr: %s', (_name, args, exit, message) => {
    const run = cli(...args);
    expect(run.status).toBe(exit);
    const printed = JSON.parse(run.stdout) as { error: { exit: number; message: string } };
    expect(printed.error.exit).toBe(exit);
    expect(printed.error.message).toContain(message);
    expect(run.stderr).toContain(message);
    expect(withoutStack(run)).toBe(true);
  });
});
