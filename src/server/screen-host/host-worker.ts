// The screen host's thread: started by ScreenHost (screen-host.ts), it runs
// the ScreenTable on the batches the server's loop posts and posts back its
// events. An exception here ends the thread; the server then stops (its
// holders live on, and the next server recovers every screen).
import { parentPort, workerData } from 'node:worker_threads';
import { ScreenTable } from './screen-table.js';
import { PARSE_THREAD_NICE, lowerThisThreadsPriority } from './thread-priority.js';
import type { HostBatch, HostEvent, HostWorkerData } from './messages.js';

const port = parentPort;
if (port === null) throw new Error('tend: the screen host runs as a worker thread');
lowerThisThreadsPriority(PARSE_THREAD_NICE);
const data = workerData as HostWorkerData;
const table = new ScreenTable({ historyBudgetBytes: data.historyBudgetBytes, lane: data.lane }, (events: HostEvent[]) => port.postMessage(events));
port.on('message', (batch: HostBatch) => table.receive(batch));
