#!/usr/bin/env node
// After `tsc -p tsconfig.build.json`: copies into dist/ the files the compiled code reads at run time
// and tsc does not emit: the SQLite writer thread's and the audit's integrity thread's JavaScript entries (loaded by path) and the example
// scenario, manifest, tool mapping and agent (read by `raes-tools demo` and the bundled harnesses).
const { cpSync, mkdirSync, readdirSync, statSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');
const ASSETS = [/\.js$/, /\.mjs$/, /\.d\.ts$/, /\.ya?ml$/, /\.json$/];
const FOLDERS = ['adapters/event-store/sqlite', 'adapters/cli', 'examples', 'schemas'];
// The gateway example's configuration file runs from a checkout (it starts TypeScript through tsx).
const SKIP = [/^examples\/gateway\/gateway\.json$/];

const walk = (folder) =>
  readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

let copied = 0;
for (const folder of FOLDERS) {
  for (const file of walk(join(ROOT, folder))) {
    const path = relative(ROOT, file).split('\\').join('/');
    if (!ASSETS.some((pattern) => pattern.test(file)) || SKIP.some((pattern) => pattern.test(path))) continue;
    const target = join(DIST, relative(ROOT, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
    copied += 1;
  }
}
process.stdout.write(`copied ${copied} run-time files into dist/\n`);
