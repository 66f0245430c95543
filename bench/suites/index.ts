// Every suite `npm run bench` runs, in order. A new suite is one file under
// bench/suites/ exporting a Suite, added to this list.

import type { Suite } from '../lib/suite.js';
import { agentSleepSuite } from './agent-sleep.js';
import { attachEchoSuite } from './attach-echo.js';
import { attachMemorySuite } from './attach-memory.js';
import { attachReattachSuite } from './attach-reattach.js';
import { attachThroughputSuite } from './attach-throughput.js';
import { cliAwaitSuite } from './cli-await.js';
import { cliLatencySuite } from './cli-latency.js';
import { echoSuite } from './echo.js';
import { holderEchoSuite } from './holder-echo.js';
import { holderMemorySuite } from './holder-memory.js';
import { holderThroughputSuite } from './holder-throughput.js';
import { hookCostSuite } from './hook-cost.js';
import { mcpRunSuite } from './mcp-run.js';
import { serverCheckpointSuite } from './server-checkpoint.js';
import { serverLoopSuite } from './server-loop.js';
import { serverMemorySuite } from './server-memory.js';
import { serverRecoverySuite } from './server-recovery.js';
import { serverScaleSuite } from './server-scale.js';
import { serverThroughputSuite } from './server-throughput.js';
import { throughputSuite } from './throughput.js';
import { tmuxMemorySuite } from './tmux-memory.js';
import { tmuxReattachSuite } from './tmux-reattach.js';
import { upgradeSuite } from './upgrade.js';

export const SUITES: readonly Suite[] = [
  throughputSuite,
  echoSuite,
  tmuxReattachSuite,
  tmuxMemorySuite,
  holderMemorySuite,
  holderThroughputSuite,
  holderEchoSuite,
  serverMemorySuite,
  serverThroughputSuite,
  serverCheckpointSuite,
  serverRecoverySuite,
  serverLoopSuite,
  serverScaleSuite,
  attachEchoSuite,
  attachThroughputSuite,
  attachReattachSuite,
  attachMemorySuite,
  cliLatencySuite,
  cliAwaitSuite,
  mcpRunSuite,
  hookCostSuite,
  agentSleepSuite,
  upgradeSuite,
];
