import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The Python client's own unittest suite, run as CI runs every spec: a failing Python test fails here. */

const CLIENT_DIR = join(__dirname, '..', '..', '..', 'clients', 'python');

describe('the Python client of the remote port', () => {
  it('passes its unittest suite', () => {
    const run = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', CLIENT_DIR, '-v'], {
      cwd: CLIENT_DIR,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    if (run.error !== undefined) throw new Error(`python3 did not run: ${run.error.message}`);
    expect({ status: run.status, tail: run.stderr.trim().split('\n').slice(-3).join('\n') }).toEqual({ status: 0, tail: expect.stringMatching(/^OK/m) });
    expect(run.stderr).toMatch(/Ran [1-9]\d* tests/);
  });
});
