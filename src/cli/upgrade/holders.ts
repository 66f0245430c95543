// `tend upgrade --holders`: each running holder replaces its binary in place,
// keeping its terminal (POST /v1/holders/upgrade). The server is asked one
// session at a time, so the progress said is true as it goes; the summary
// names every holder left as it was and why.
import type { Writable } from 'node:stream';
import type { TendClient } from '../client.js';
import { EXIT } from '../exit-codes.js';
import { API_ROUTES, type HolderUpgradeOutcome, type ListedSession, type UpgradeHoldersReply } from '../../protocol/api/index.js';

export interface HolderUpgradeOptions {
  client: TendClient;
  stdout: Writable;
  /** Print the server's reply (all sessions in one) instead of progress and a summary. */
  json: boolean;
  /** The new holder binary; default: the one the server starts holders with. */
  holderPath?: string;
}

function label(s: HolderUpgradeOutcome): string {
  return s.name === null ? s.session : `:${s.name} (${s.session})`;
}

function summary(reply: UpgradeHoldersReply): string[] {
  const lines = [`holders checked against build ${reply.build}: ${reply.upgraded} upgraded, ${reply.skipped} left as they were, ${reply.failed} failed`];
  const stalls = reply.sessions.flatMap((s) => (s.result === 'upgraded' ? [s.stallMs] : []));
  if (stalls.length > 0) lines.push(`longest pause in a session's output: ${Math.max(...stalls)} ms`);
  for (const s of reply.sessions) {
    if (s.result === 'skipped' && s.reason !== 'not-running') lines.push(`  ${label(s)}: ${s.message}`);
    if (s.result === 'failed') lines.push(`  ${label(s)}: failed: ${s.message}`);
  }
  return lines;
}

/** Returns the exit status: failed when any holder failed to hand over. */
export async function runHolderUpgrade(opts: HolderUpgradeOptions): Promise<number> {
  const { client, stdout } = opts;
  const holderPath = opts.holderPath;
  // No targets: the server checks the binary (and says its build) before any holder is touched.
  const first = await client.callRoute<UpgradeHoldersReply>(API_ROUTES.upgradeHolders, {}, { holderPath, sessions: [] });
  const running = (await client.callRoute<ListedSession[]>(API_ROUTES.listSessions)).filter((s) => s.status === 'running');
  const reply: UpgradeHoldersReply = { ...first, upgraded: 0, skipped: 0, failed: 0, sessions: [] };
  if (!opts.json) stdout.write(`holders done 0/${running.length}\n`);
  for (const [i, session] of running.entries()) {
    const one = await client.callRoute<UpgradeHoldersReply>(API_ROUTES.upgradeHolders, {}, { holderPath: first.holderPath, sessions: [session.id] });
    reply.upgraded += one.upgraded;
    reply.skipped += one.skipped;
    reply.failed += one.failed;
    reply.sessions.push(...one.sessions);
    if (!opts.json) stdout.write(`holders done ${i + 1}/${running.length}\n`);
  }
  if (opts.json) stdout.write(`${JSON.stringify(reply, null, 2)}\n`);
  else for (const line of summary(reply)) stdout.write(`${line}\n`);
  return reply.failed > 0 ? EXIT.failed : EXIT.ok;
}
