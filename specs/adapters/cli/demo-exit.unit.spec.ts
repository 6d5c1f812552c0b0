import { demoExitCode } from '../../../adapters/cli/commands/demo';
import { EXIT_INVALID, EXIT_OK } from '../../../adapters/cli/io';

describe('the exit code of raes-tools demo', () => {
  it('is 0 when everything was stored and the audit is sound', () => {
    expect(demoExitCode([], true)).toBe(EXIT_OK);
  });

  it('is 1 when the audit has findings', () => {
    expect(demoExitCode([], false)).toBe(EXIT_INVALID);
  });

  it('is 1 when an append failed, even though the audit of what was stored is sound', () => {
    expect(demoExitCode(['committing 1 append(s) failed: the disk is full'], true)).toBe(EXIT_INVALID);
  });
});
