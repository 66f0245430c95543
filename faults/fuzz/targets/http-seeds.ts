// Seeds for the HTTP targets: a body of every route that takes one, and
// request targets with the queries the routes read, as a client sends them.
const text = (s: string) => new TextEncoder().encode(s);

export function httpSeeds(): Record<string, Record<string, Uint8Array>> {
  const bodies: Record<string, unknown> = {
    'new-session': { name: 'build', argv: ['bash', '-l'], cwd: '/', cols: 120, rows: 40, env: { HOME: '/home/a', TERM: 'xterm-256color' }, term: 'xterm', shellIntegration: true },
    rename: { name: 'web.1' },
    'input-text': { text: 'make test\r' },
    'input-base64': { base64: 'G1tBDQ==', key: '00112233445566778899aabbccddeeff' },
    resize: { cols: 80, rows: 24 },
    signal: { signal: 'INT' },
    await: { input: 'ls -l', timeoutMs: 30000, id: 'w0123456789ab' },
    split: { direction: 'down', ratio: 0.3, argv: ['htop'] },
    layout: { layout: { type: 'split', direction: 'right', ratio: 0.5, first: { type: 'session', sessionId: 's1' }, second: { type: 'session', sessionId: 's2' } } },
    'workspace-add': { session: ':build', direction: 'right' },
  };
  const body: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(bodies)) body[name] = text(JSON.stringify(value));
  body.empty = new Uint8Array(0);
  body['bad-not-json'] = text('{"text": "a",}');
  body['bad-array'] = text('["text"]');
  body['bad-types'] = text('{"cols": 1.5, "rows": "24", "argv": [1], "env": {"A=B": "c"}, "base64": "@@"}');

  const targets: Record<string, string> = {
    sessions: '/v1/sessions',
    screen: '/v1/sessions/%3Abuild/screen?format=snapshot&scrollback=1000',
    search: '/v1/sessions/1/search?q=err(or)%3F&regex=1&ignore-case=1&max=50',
    output: '/v1/sessions/s1/output?cmd=last',
    await: '/v1/awaits/w0123456789ab?waitMs=5000',
    'bad-host': '//[',
    'bad-space': '//a b/c',
  };
  const target: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(targets)) target[name] = text(value);
  return { 'http-body': body, 'http-request-target': target };
}
