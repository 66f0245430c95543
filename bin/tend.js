#!/usr/bin/env node
// The `tend` command: the compiled CLI (npm install builds it).
import { setFlagsFromString } from 'node:v8';

// V8's memory reducer makes full collections when a process looks idle, and
// `tend attach` being typed into looks idle: 8 s after it started it paused
// twice, 6–8 ms each, between a key and its echo. The delay is set before the
// CLI loads, while the reducer has not armed yet; other verbs end long before
// it would run, and an attach's heap is a few MB.
setFlagsFromString(`--gc-memory-reducer-start-delay-ms=${2 ** 31 - 1}`);
const { run } = await import('../dist/src/cli/main.js');
process.exitCode = await run(process.argv.slice(2));
