// A real tend server with one session for the hook tests, and the session's
// agent as the server knows it (GET /v1/sessions/:id).
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../server/harness.js';
import type { AgentInfo, SessionInfo } from '../../src/protocol/api/index.js';

export interface HookServer {
  server: TestServer;
  /** The session a hook reports for (its TEND_SESSION). */
  session: string;
  /** The server's unix socket (a hook's TEND_SOCKET). */
  socket: string;
  agent(): Promise<AgentInfo | null>;
}

/** A server, started, with a session running `argv` (a quiet sleep unless told). */
export async function startHookServer(argv: string[] = ['sh', '-c', 'exec sleep 600'], env: Record<string, string> = {}): Promise<HookServer> {
  const server = startTestServer();
  const started = await server.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  const created = await server.api<SessionInfo>('POST', '/v1/sessions', { argv, cwd: server.home, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await server.holderPids();
  const session = created.body.id;
  return {
    server,
    session,
    socket: server.client.paths.serverSocket,
    async agent() {
      const res = await server.api<SessionInfo>('GET', `/v1/sessions/${session}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.agent;
    },
  };
}
