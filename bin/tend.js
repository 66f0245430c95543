#!/usr/bin/env node
// The `tend` command: the compiled CLI (npm install builds it).
import { run } from '../dist/src/cli/main.js';

process.exitCode = await run(process.argv.slice(2));
