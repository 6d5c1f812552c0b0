import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, scratchDir } from './support/cli';

jest.setTimeout(120_000);

type Json = Record<string, unknown>;

/** `export --episode`: narrows the export to one episode, and names the episodes present when asked for another. */
describe('raes-tools export --episode', () => {
  const dataDir = join(scratchDir('export-episode'), 'data');

  beforeAll(() => {
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-narrowed', '--data-dir', dataDir, '--json').status).toBe(0);
  });

  it('exports the episode asked for', () => {
    const whole = cli('export', '--data-dir', dataDir);
    const narrowed = cli('export', '--data-dir', dataDir, '--episode', 'episode-narrowed');
    expect(narrowed.status).toBe(0);
    const exported = JSON.parse(narrowed.stdout) as Json;
    const views = exported.participant_history_views as Json[];
    expect(views.length).toBe(1);
    expect(views[0]!.episode_id).toBe('episode-narrowed');
    const strip = (history: Json): Json => ({ ...history, participant_history_views: (history.participant_history_views as Json[]).map(({ generated_at: _, ...view }) => view) });
    expect(strip(exported)).toEqual(strip(JSON.parse(whole.stdout) as Json));
  });

  it('refuses an episode the data dir does not hold, naming the ones it does', () => {
    const other = cli('export', '--data-dir', dataDir, '--episode', 'episode-elsewhere');
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('no episode episode-elsewhere');
    expect(other.stderr).toContain('the episodes it holds: episode-narrowed');
    expect(other.stdout).toBe('');
  });

  it('refuses --episode with --bundle as a usage error', () => {
    const run = cli('export', '--bundle', '--key', 'k.pem', '--episode', 'episode-narrowed', '--data-dir', dataDir);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('drop --participant, --episode and --format');
  });
});
