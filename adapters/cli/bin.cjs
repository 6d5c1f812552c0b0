#!/usr/bin/env node
// Launcher for the `raes-tools` bin: runs the TypeScript entry through tsx's CommonJS loader.
require('tsx/cjs');
require('./main.ts');
