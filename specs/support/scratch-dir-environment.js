const { rmSync } = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

/** The global through which scratchDir (scratch-dir.ts) lists the folders it made. */
const SCRATCH_DIRS = 'raesScratchDirs';

/**
 * Jest's node environment that removes the folders a spec file made with scratchDir once the file is
 * done: after its last hook (so after the servers and child processes its hooks stop), whether its
 * tests passed or failed, and also when none of them ran (jest then runs no afterAll hook at all).
 */
class ScratchDirEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.scratchDirs = [];
    this.global[SCRATCH_DIRS] = this.scratchDirs;
  }

  async teardown() {
    const failures = [];
    for (const dir of this.scratchDirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch (error) {
        failures.push(error);
      }
    }
    await super.teardown();
    if (failures.length > 0) throw failures[0];
  }
}

module.exports = ScratchDirEnvironment;
