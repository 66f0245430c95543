// Hostile requests for the HTTP API: wrong types, extreme numbers, control
// characters, oversized bodies, bad base64, bad ids. Each is a request a
// careless or malicious client could send; every one must be refused with a
// 4xx and a JSON error, and none may type a byte into a program.

/** Where the request goes; `SINK` in a path is replaced by the session that records its input. */
export interface HostileRequest {
  what: string;
  method: string;
  path: string;
  /** A string is sent as it is (bad JSON); an object as JSON; a Buffer as raw bytes. */
  body?: unknown;
}

const MIB = 1024 * 1024;
const input = (what: string, body: unknown): HostileRequest => ({ what: `input: ${what}`, method: 'POST', path: '/v1/sessions/SINK/input', body });
const create = (what: string, extra: Record<string, unknown>): HostileRequest => ({ what: `new session: ${what}`, method: 'POST', path: '/v1/sessions', body: { argv: ['true'], ...extra } });

export function hostileRequests(): HostileRequest[] {
  return [
    // input: the body
    input('not JSON', '{"text": "a"'),
    input('JSON null', 'null'),
    input('a JSON array', '["text", "a"]'),
    input('a JSON number', '42'),
    input('a JSON string', '"a"'),
    input('an empty body', ''),
    input('invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0xc0])),
    input('neither text nor base64', {}),
    input('both text and base64', { text: 'a', base64: 'YQ==' }),
    input('text a number', { text: 12 }),
    input('text an array', { text: ['a'] }),
    input('text an object', { text: { a: 1 } }),
    input('text true', { text: true }),
    input('base64 with characters outside the alphabet', { base64: '!!!!' }),
    input('base64 unpadded', { base64: 'YWJj ZA' }),
    input('base64 with a space', { base64: 'YW Jj' }),
    input('base64 with a newline', { base64: 'YWJj\n' }),
    input('base64 URL alphabet', { base64: '-_-_' }),
    input('base64 a number', { base64: 1234 }),
    input('key not hex', { text: 'a', key: 'zz'.repeat(16) }),
    input('key too short', { text: 'a', key: 'ab' }),
    input('key upper case', { text: 'a', key: 'AB'.repeat(16) }),
    input('key a number', { text: 'a', key: 12 }),
    input('key with a control character', { text: 'a', key: `${'a'.repeat(31)}\u0000` }),
    input('a body over 64 MiB', { text: 'x'.repeat(64 * MIB + 1) }),
    input('nesting 100 000 arrays deep', '['.repeat(100_000) + ']'.repeat(100_000)),
    // input: the target
    { what: 'input: an id that is no session', method: 'POST', path: '/v1/sessions/zzzzzzzz/input', body: { text: 'a' } },
    { what: 'input: a NUL in the id', method: 'POST', path: '/v1/sessions/%00/input', body: { text: 'a' } },
    { what: 'input: bad percent-encoding', method: 'POST', path: '/v1/sessions/%ZZ/input', body: { text: 'a' } },
    { what: 'input: a path in the id', method: 'POST', path: '/v1/sessions/..%2F..%2Fetc%2Fpasswd/input', body: { text: 'a' } },
    { what: 'input: index 0', method: 'POST', path: '/v1/sessions/0/input', body: { text: 'a' } },
    { what: 'input: index -1', method: 'POST', path: '/v1/sessions/-1/input', body: { text: 'a' } },
    { what: 'input: index 1e21', method: 'POST', path: '/v1/sessions/1e21/input', body: { text: 'a' } },
    { what: 'input: index past 2^53', method: 'POST', path: '/v1/sessions/99999999999999999999/input', body: { text: 'a' } },
    { what: 'input: an id of 10 000 characters', method: 'POST', path: `/v1/sessions/${'a'.repeat(10_000)}/input`, body: { text: 'a' } },
    { what: 'input: an escape sequence as the id', method: 'POST', path: `/v1/sessions/${encodeURIComponent('\x1b[31m:x')}/input`, body: { text: 'a' } },
    { what: 'input: GET instead of POST', method: 'GET', path: '/v1/sessions/SINK/input' },
    // other routes of the session
    { what: 'resize: cols 0', method: 'POST', path: '/v1/sessions/SINK/resize', body: { cols: 0, rows: 24 } },
    { what: 'resize: cols 1e308', method: 'POST', path: '/v1/sessions/SINK/resize', body: { cols: 1e308, rows: 24 } },
    { what: 'resize: cols 1e400 (Infinity)', method: 'POST', path: '/v1/sessions/SINK/resize', body: '{"cols": 1e400, "rows": 24}' },
    { what: 'resize: cols 80.5', method: 'POST', path: '/v1/sessions/SINK/resize', body: { cols: 80.5, rows: 24 } },
    { what: 'resize: cols "80"', method: 'POST', path: '/v1/sessions/SINK/resize', body: { cols: '80', rows: 24 } },
    { what: 'resize: rows -1', method: 'POST', path: '/v1/sessions/SINK/resize', body: { cols: 80, rows: -1 } },
    { what: 'signal: an unknown name', method: 'POST', path: '/v1/sessions/SINK/signal', body: { signal: 'KILLX' } },
    { what: 'signal: 999', method: 'POST', path: '/v1/sessions/SINK/signal', body: { signal: 999 } },
    { what: 'signal: -9', method: 'POST', path: '/v1/sessions/SINK/signal', body: { signal: -9 } },
    { what: 'signal: a shell command', method: 'POST', path: '/v1/sessions/SINK/signal', body: { signal: 'INT; echo hi' } },
    { what: 'signal: an object', method: 'POST', path: '/v1/sessions/SINK/signal', body: { signal: { n: 2 } } },
    { what: 'rename: a number', method: 'PATCH', path: '/v1/sessions/SINK', body: { name: 5 } },
    { what: 'rename: a space and an escape', method: 'PATCH', path: '/v1/sessions/SINK', body: { name: 'a b\x1b[2J' } },
    { what: 'rename: 65 characters', method: 'PATCH', path: '/v1/sessions/SINK', body: { name: 'n'.repeat(65) } },
    { what: 'screen: scrollback -1', method: 'GET', path: '/v1/sessions/SINK/screen?scrollback=-1' },
    { what: 'screen: scrollback 1e9', method: 'GET', path: '/v1/sessions/SINK/screen?scrollback=1000000000' },
    { what: 'screen: scrollback not a number', method: 'GET', path: '/v1/sessions/SINK/screen?scrollback=abc' },
    { what: 'screen: an unknown format', method: 'GET', path: '/v1/sessions/SINK/screen?format=%1b%5b31m' },
    { what: 'search: an empty query', method: 'GET', path: '/v1/sessions/SINK/search?q=' },
    { what: 'search: 1 001 characters', method: 'GET', path: `/v1/sessions/SINK/search?q=${'q'.repeat(1001)}` },
    { what: 'search: a bad regular expression', method: 'GET', path: '/v1/sessions/SINK/search?q=(&regex=1' },
    { what: 'search: max 0', method: 'GET', path: '/v1/sessions/SINK/search?q=a&max=0' },
    { what: 'search: max 1e6', method: 'GET', path: '/v1/sessions/SINK/search?q=a&max=1000000' },
    { what: 'output: cmd -1', method: 'GET', path: '/v1/sessions/SINK/output?cmd=-1' },
    { what: 'await: empty input', method: 'POST', path: '/v1/sessions/SINK/await', body: { input: '' } },
    { what: 'await: input a number', method: 'POST', path: '/v1/sessions/SINK/await', body: { input: 5 } },
    { what: 'await: timeoutMs -1', method: 'POST', path: '/v1/sessions/SINK/await', body: { input: 'true', timeoutMs: -1 } },
    { what: 'await: timeoutMs 1e12', method: 'POST', path: '/v1/sessions/SINK/await', body: { input: 'true', timeoutMs: 1e12 } },
    { what: 'await: a malformed id', method: 'POST', path: '/v1/sessions/SINK/await', body: { input: 'true', id: '../x' } },
    { what: 'awaits: an unknown id', method: 'GET', path: '/v1/awaits/w000000000000' },
    { what: 'awaits: waitMs -5', method: 'GET', path: '/v1/awaits/w000000000000?waitMs=-5' },
    // new sessions
    create('cols -1', { cols: -1 }),
    create('cols 1e308', { cols: 1e308 }),
    create('rows 1001', { rows: 1001 }),
    create('cols "80"', { cols: '80' }),
    create('argv a string', { argv: 'sh -c id' }),
    create('argv of numbers', { argv: [1, 2] }),
    create('argv an empty array', { argv: [] }),
    create('a name with a space', { name: 'a b' }),
    create('a name with NUL', { name: 'a\u0000' }),
    create('a name of 65 characters', { name: 'n'.repeat(65) }),
    create('an env name holding "="', { env: { 'A=B': 'c' } }),
    create('an empty env name', { env: { '': 'c' } }),
    create('an env name holding NUL', { env: { 'A\u0000B': 'c' } }),
    create('env a string', { env: 'A=B' }),
    create('cwd a number', { cwd: 5 }),
    create('a body over 1 MiB', { argv: ['true', 'x'.repeat(MIB + 1)] }),
    // workspaces
    { what: 'workspace: ratio 2', method: 'PUT', path: '/v1/workspaces/w', body: { layout: { type: 'split', direction: 'right', ratio: 2, first: { type: 'session', sessionId: 'SINK' }, second: { type: 'session', sessionId: 'SINK' } } } },
    { what: 'workspace: a layout 10 000 levels deep', method: 'PUT', path: '/v1/workspaces/w', body: deepLayout(10_000) },
    { what: 'workspace: a bad name', method: 'PUT', path: '/v1/workspaces/%1b%5b2J', body: { layout: null } },
    // the API itself
    { what: 'an unknown route', method: 'GET', path: '/v1/nothing-here' },
    { what: 'a method no route has', method: 'BREW', path: '/v1/sessions' },
    { what: 'a path of 100 000 characters', method: 'GET', path: `/v1/${'p'.repeat(100_000)}` },
  ];
}

function deepLayout(levels: number): string {
  // Built as text: a recursive object this deep would overflow JSON.stringify's stack here first.
  const open = '{"type":"split","direction":"right","ratio":0.5,"first":{"type":"session","sessionId":"x"},"second":';
  return `{"layout":${open.repeat(levels)}{"type":"session","sessionId":"y"}${'}'.repeat(levels)}}`;
}
