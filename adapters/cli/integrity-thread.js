// The entry of the audit's integrity thread (pass-integrity.ts), in plain JavaScript so that a Worker
// loads it as it is. The compiled package has the thread's code beside it as JavaScript; a checkout
// runs it from TypeScript, through tsx (the checkout's development dependency).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

if (!existsSync(join(__dirname, 'integrity-worker.js'))) require('tsx/cjs/api').register();
require('./integrity-worker');
