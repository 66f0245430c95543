// The fuzz part: the coverage-guided fuzzing of the TypeScript parsers lives
// in faults/fuzz/ (its own engineer, its own README section); this wraps its
// runFuzz() as a part of the suite, so its figures print and land in
// docs/reliability.md with the others.
import { figure, zeroTarget, type Part } from './lib/part.js';
import { FULL_EXECUTIONS, runFuzz } from './fuzz/index.js';

export const fuzzPart: Part = {
  name: 'fuzz',
  title: 'Fuzzing the TypeScript parsers (viewer frames, holder frames, HTTP bodies and request targets, WebSocket frames and handshakes)',
  async run(opts) {
    const short = opts.short || opts.fuzzShort === true;
    const results = await runFuzz({ short, log: (line) => opts.log(`  ${line}`), randomSeed: opts.seed });
    return {
      figures: [
        ...results.map((r) => ({
          name: `${r.target}: executions`,
          value: r.executions.toLocaleString('en'),
          ...(short ? {} : { target: `>= ${FULL_EXECUTIONS.toLocaleString('en')}`, met: r.executions >= FULL_EXECUTIONS }),
        })),
        ...results.map((r) => zeroTarget(`${r.target}: findings`, r.findings)),
        figure('targets', results.length),
      ],
      findings: [],
    };
  },
};
