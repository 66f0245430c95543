// The tend server: opens the store, recovers every session from its holder,
// and serves the API on a unix socket. Stopping it closes no terminal.
import { createServer, type Server as HttpServer } from 'node:http';
import { answerClientErrors } from './http/client-errors.js';
import { chmodSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { DisposableBase, toDisposable } from '../common/lifecycle.js';
import { ensurePrivateDir, ensureRuntimeDirs, type TendPaths } from '../common/paths.js';
import type { Logger } from './log.js';
import { Store } from './store/index.js';
import { CheckpointWriter, collectStale } from './checkpoint/index.js';
import { SessionRegistry } from './session-registry.js';
import type { Session } from './session.js';
import { DEFAULT_SCROLLBACK_ROWS } from './screen/index.js';
import { Router } from './http/router.js';
import { type HealthReply, type RecoveryProgress, type StopReply } from '../protocol/api/index.js';
import { OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION } from '../protocol/holder-frames.js';
import { MIN_VIEWER_PROTOCOL_VERSION, VIEWER_PROTOCOL_VERSION } from '../protocol/viewer-frames.js';
import { addSessionRoutes } from './http/sessions-api.js';
import { addSearchRoutes } from './http/search-api.js';
import { TEND_BUILD, TEND_VERSION } from '../common/version.js';
import { runningService } from './running-service.js';
import { holderLauncherFor } from './holder-scope.js';
import { HolderRelease } from './holder-release.js';
import { API_VERSIONS } from '../protocol/api/versions.js';
import { attachViewerSocket, type UpgradeRefusal, type UpgradeSession } from './http/viewer-socket.js';
import { AmbiguousTargetError, EmptyTargetError, NoSuchSessionError } from './targets.js';
import { join } from 'node:path';
import { addCommandRoutes, awaitSession } from './http/commands-api.js';
import { addWorkspaceRoutes } from './http/workspaces-api.js';
import { addAgentRoutes } from './http/agents-api.js';
import { AgentRegistry } from './agents/agent-registry.js';
import { AgentSleep, type AgentSleepControl } from './agents/agent-sleep.js';
import { openAgentStore } from './agents/agent-store.js';
import { AgentDetector } from './agents/agent-detect.js';
import { HookSpool } from './agents/hook-spool.js';
import { defaultHookClientPath } from '../common/agents/hook-client-path.js';
import { DEFAULT_AGENT_SLEEP_AFTER_MS } from '../protocol/api/index.js';
import { tryStartLoopbackListener, DEFAULT_LOOPBACK_PORT, type LoopbackListener } from './http/loopback.js';
import { startGatedListener, type GatedListener } from './http/loopback.js';
import { openAccess, type Access } from './access/index.js';
import { ExtraListeners, type StartedListener } from './access/extra-listeners.js';
import { addRemoteRoutes, type RemoteRoutesOptions } from './http/remote-api.js';
import { AwaitRegistry, openAwaitStore } from './awaits/index.js';
import { AgentAwaits } from './awaits/agent-await.js';
import { WorkspaceRepository, Workspaces } from './workspaces/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createStaticFiles } from './http/static-files.js';
import { LoopMonitor } from './loop-monitor.js';
import { ScreenHost } from './screen-host/index.js';
import { totalmem } from 'node:os';
import type { WindowSizePolicy } from './viewers/size-policy.js';
import { upgradeHoldersIfAsked } from './holder-upgrade.js';
import { addHolderUpgradeRoute } from './http/holder-upgrade-api.js';

/**
 * Bytes of history the whole server keeps: a quarter of the machine's
 * memory, at most 1 GiB. Past it the oldest rows of any session go first
 * (and are reported as dropped); the server must never grow until the OOM
 * killer takes every screen at once.
 */
function defaultHistoryBudgetBytes(): number {
  return Math.min(1024 ** 3, Math.floor(totalmem() / 4));
}

export interface ServerOptions {
  paths: TendPaths;
  log: Logger;
  scrollbackRows?: number;
  /** Rows of each session's scrollback kept live in xterm (TEND_LIVE_ROWS). */
  liveScrollbackRows?: number;
  /** Bytes of history per session (TEND_HISTORY_BYTES). */
  historyBytes?: number;
  /** Bytes of history for the whole server (TEND_HISTORY_BUDGET_BYTES). */
  historyBudgetBytes?: number;
  holderPath?: string;
  ringBytes?: number;
  checkpointQuietMs?: number;
  checkpointMaxIntervalMs?: number;
  /** TEND_PORT: the 127.0.0.1 listener's port; 0 = any free port. */
  loopbackPort?: number;
  /** TEND_WINDOW_SIZE: which viewer's size a session's PTY takes (tmux's window-size); default latest. */
  windowSize?: WindowSizePolicy;
  /** Called when a client asks the server to stop. */
  onStopRequested?: () => void;
  /** Sessions recovered so far at start (see SessionRegistry.recoverAll). */
  onRecoveryProgress?: (done: number, total: number) => void;
  /** Idle time before an agent sleeps (TEND_AGENT_SLEEP_MINUTES); null: never; default 30 min. */
  agentSleepAfterMs?: number | null;
  /** The hook client agents' hooks run (TEND_HOOK_CLIENT); default holder/build/tend-hook. */
  hookClientPath?: string;
  /** The server cannot go on (its screen host died): stop the process; holders keep every terminal. */
  onFatal?: (error: Error) => void;
  /** Started by `tend upgrade` (take-over.ts): resolves when the upgrade has kept this server. */
  upgradeTrial?: Promise<void>;
}


export class TendServer extends DisposableBase {
  readonly boot = randomBytes(8).toString('hex');
  readonly startedAt = Date.now();
  private http: HttpServer | null = null;
  private registry!: SessionRegistry;
  private store!: Store;
  private checkpoints!: CheckpointWriter;
  private stopping = false;
  private awaits!: AwaitRegistry;
  private workspaces!: Workspaces;
  private agents!: AgentRegistry;
  /** Awaits on agents' turns (`tend await :agent -- PROMPT`). */
  private agentAwaits!: AgentAwaits;
  /** Sleep and wake of agents (agents/agent-sleep.ts), once wired. */
  private agentSleep: AgentSleepControl | null = null;
  /** Hook events sent while no server answered (agents/hook-spool.ts). */
  private hookSpool!: HookSpool;
  private loopback: LoopbackListener | null = null;
  /** Remote access (issue 28, docs/remote.md): the gate, and the listeners beyond 127.0.0.1 it guards. */
  private access: Access | null = null;
  private extraListeners: ExtraListeners | null = null;
  private handleRequest: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  private readonly loop = this.register(new LoopMonitor());
  private screens!: ScreenHost;
  private holderRelease: HolderRelease | null = null;
  recovered: Record<string, number> = {};
  /** What recovery at start came to (the API answers only once it is done). */
  private recovery: RecoveryProgress = { total: 0, recovered: 0, cold: 0, done: false };

  constructor(private readonly options: ServerOptions) {
    super();
  }

  get sessions(): SessionRegistry {
    return this.registry;
  }

  async start(): Promise<void> {
    const { paths, log } = this.options;
    ensurePrivateDir(paths.home);
    ensureRuntimeDirs(paths);
    this.store = this.register(Store.open({ dir: paths.storeDir }));
    if (this.store.readOnly) log.warn(`the store at ${paths.storeDir} is read-only: sessions are served but changes are not saved`);
    else this.collectOrphanRows();
    try {
      ensurePrivateDir(paths.checkpointsDir);
      // Files of sessions the store no longer has (killed by a server that died before removing them) go too.
      const collected = await collectStale(paths.checkpointsDir, { liveSessionIds: this.store.liveSessionIds() });
      if (collected.orphans.length > 0) log.info(`removed ${collected.orphans.length} checkpoint and history files of sessions that are gone`);
    } catch (err) {
      log.warn(`checkpoints directory ${paths.checkpointsDir} is not usable: ${(err as Error).message}`);
    }
    this.checkpoints = this.register(new CheckpointWriter({ dir: paths.checkpointsDir, log }));
    this.screens = this.register(new ScreenHost({
      historyBudgetBytes: this.options.historyBudgetBytes ?? defaultHistoryBudgetBytes(),
      onFatal: (err) => {
        if (this.stopping || this.isDisposed) return;
        log.error('the screen host died; the server cannot go on', err);
        if (this.options.onFatal) this.options.onFatal(err);
        else setImmediate(() => { throw err; });
      },
    }));
    this.holderRelease = this.register(new HolderRelease(this.options.upgradeTrial ?? null));
    this.registry = this.register(new SessionRegistry({
      boot: this.boot,
      store: this.store,
      log,
      checkpoints: this.checkpoints,
      checkpointsDir: paths.checkpointsDir,
      holdersDir: paths.holdersDir,
      scrollbackRows: this.options.scrollbackRows ?? DEFAULT_SCROLLBACK_ROWS,
      liveScrollbackRows: this.options.liveScrollbackRows,
      historyBytes: this.options.historyBytes,
      screens: this.screens,
      holderPath: this.options.holderPath,
      holderLauncher: holderLauncherFor(runningService(), log),
      ringBytes: this.options.ringBytes,
      checkpointQuietMs: this.options.checkpointQuietMs,
      checkpointMaxIntervalMs: this.options.checkpointMaxIntervalMs,
      shellIntegrationDir: join(paths.runtimeDir, 'shell-integration'),
      windowSize: this.options.windowSize,
      serverSocket: paths.serverSocket,
      holderRelease: this.holderRelease,
    }));
    // One store for both kinds of await: command awaits and agent awaits (agent-await.ts).
    const awaitStore = openAwaitStore(this.store.database, { readOnly: this.store.readOnly, onBadRow: (id) => log.warn(`await ${id}: stored row unreadable; dropped`) });
    this.awaits = this.register(new AwaitRegistry({
      stagingDir: join(paths.runtimeDir, 'await'),
      log,
      store: awaitStore,
    }));
    this.workspaces = this.register(new Workspaces({
      repository: WorkspaceRepository.open({
        db: this.store.database,
        readOnly: this.store.readOnly,
        onBadRow: (name, why) => log.warn(`workspace ${name}: stored layout unreadable (${why}); treated as empty`),
      }),
      liveSessionIds: () => this.registry.list().map((s) => s.id),
      log,
    }));
    this.register(this.registry.onSessionRemoved((s) => this.workspaces.sessionRemoved(s.id)));
    this.agents = this.register(new AgentRegistry({
      store: openAgentStore(this.store.database, { readOnly: this.store.readOnly, onBadRow: (id) => log.warn(`session ${id}: stored agent unreadable; dropped`) }),
      log,
      agentsDir: join(paths.home, 'agents'),
      hookClientPath: this.options.hookClientPath ?? defaultHookClientPath(),
      defaultSleepAfterMs: this.options.agentSleepAfterMs === undefined ? DEFAULT_AGENT_SLEEP_AFTER_MS : this.options.agentSleepAfterMs,
    }));
    this.register(this.registry.onSessionRemoved((s) => this.agents.forget(s.id)));
    // Agents started in a tend shell without tend's hooks: found on the terminal, with a hint.
    const agentDetector = this.register(new AgentDetector({ agents: this.agents, log }));
    this.register(this.registry.onSessionAdded((s) => agentDetector.follow(s)));
    this.register(this.registry.onSessionRemoved((s) => agentDetector.forget(s.id)));
    // Before the agents are restored: a sleeping one shows its kept screen to the first viewer.
    const agentSleep = new AgentSleep({ agents: this.agents, screens: this.screens, agentsDir: join(paths.home, 'agents'), log });
    this.agentSleep = agentSleep;
    this.register(this.registry.onSessionRemoved((s) => agentSleep.forget(s.id)));
    this.agentAwaits = this.register(new AgentAwaits({ agents: this.agents, log, store: awaitStore }));
    const t0 = performance.now();
    const runningAtStart = this.store.listSessions().filter((r) => r.status === 'running').map((r) => r.id);
    this.recovered = await this.registry.recoverAll(this.options.onRecoveryProgress);
    this.recovery = this.recoveryOf(runningAtStart);
    log.info(`recovered sessions in ${(performance.now() - t0).toFixed(0)} ms: ${JSON.stringify(this.recovered)}`);
    this.agents.restore(this.registry.list());
    this.agentAwaits.restore();
    // Awaits typed before a restart are bound to their commands in the recovered indexes.
    await this.awaits.restore((id) => {
      const session = this.registry.list().find((s) => s.id === id && s.status === 'running');
      return session === undefined ? undefined : { session: awaitSession(session), commands: session.commands };
    });
    // Once agents and their awaits are back (a replayed Stop answers an await), and before the
    // socket answers: spooled events are older than any live one. Watched first, so none is missed.
    this.hookSpool = this.register(new HookSpool({
      dir: paths.hookSpoolDir,
      log,
      sessionById: (id) => this.registry.list().find((s) => s.id === id),
      report: (session, kind, event, payload) => void this.agents.report(session, kind, event, payload),
    }));
    this.hookSpool.watch();
    this.hookSpool.drain();
    await this.listen();
    void upgradeHoldersIfAsked({ registry: this.registry, log, holderPath: this.options.holderPath });
  }

  /**
   * Of the sessions the store said were running, how many came back live (a
   * holder reattached: running, or exited with the status its holder kept)
   * and how many cold. One whose recovery failed, or that another server
   * holds, is neither: recovered + cold < total says so (`tend upgrade`'s check).
   */
  private recoveryOf(runningAtStart: string[]): RecoveryProgress {
    const statusOf = new Map(this.registry.list().map((s) => [s.id, s.status]));
    let recovered = 0;
    let cold = 0;
    for (const id of runningAtStart) {
      const status = statusOf.get(id);
      if (status === 'running' || status === 'exited') recovered++;
      else if (status === 'cold') cold++;
    }
    return { total: runningAtStart.length, recovered, cold, done: true };
  }

  /** Size-journal and await rows of sessions the store no longer has; a failure only costs their room. */
  private collectOrphanRows(): void {
    try {
      const { sizeRows, awaitRows } = this.store.collectOrphanRows();
      if (sizeRows + awaitRows > 0) this.options.log.info(`removed ${sizeRows} size-journal and ${awaitRows} await rows of sessions that are gone`);
    } catch (err) {
      this.options.log.warn(`could not remove store rows of sessions that are gone: ${(err as Error).message}`);
    }
  }

  private routes(): Router {
    const router = new Router();
    router.add('health', (req) => ({
      status: 200,
      json: {
        ok: true,
        version: TEND_VERSION,
        build: TEND_BUILD,
        protocols: {
          holder: { oldest: OLDEST_PROTOCOL_VERSION, newest: PROTOCOL_VERSION },
          viewer: { oldest: MIN_VIEWER_PROTOCOL_VERSION, newest: VIEWER_PROTOCOL_VERSION },
          api: API_VERSIONS,
        },
        service: runningService(),
        recovery: this.recovery,
        pid: process.pid,
        boot: this.boot,
        startedAt: this.startedAt,
        home: this.options.paths.home,
        sessions: this.registry.list().length,
        storeReadOnly: this.store.readOnly,
        checkpoints: this.checkpoints.status,
        port: this.loopback?.port ?? null,
        eventLoop: this.loop.read({ reset: req.query.get('reset-event-loop') === '1' }),
        history: { bytes: this.screens.stats.historyBytes, budgetBytes: this.screens.stats.historyBudgetBytes },
        memory: { rssBytes: process.memoryUsage.rss() },
      } satisfies HealthReply,
    }));
    router.add('stopServer', () => {
      setImmediate(() => this.options.onStopRequested?.());
      return { status: 202, json: { stopping: true, pid: process.pid } satisfies StopReply };
    });
    addSessionRoutes(router, this.registry, this.agents);
    addSearchRoutes(router, this.registry);
    addAgentRoutes(router, { target: (t) => this.registry.resolve(t ?? ''), agents: this.agents, sleep: this.agentSleep, beforeEvent: () => this.hookSpool.drain() });
    addCommandRoutes(router, { registry: this.registry, awaits: this.awaits, agentAwaits: this.agentAwaits, commandsOf: (s) => s.commands });
    addWorkspaceRoutes(router, { registry: this.registry, workspaces: this.workspaces, launchAgent: (session, agent) => this.agents.launch(session, agent) });
    addHolderUpgradeRoute(router, { registry: this.registry, log: this.options.log, holderPath: this.options.holderPath });
    addRemoteRoutes(router, this.openRemoteAccess());
    return router;
  }

  private openRemoteAccess(): RemoteRoutesOptions {
    const { paths, log } = this.options;
    const access = openAccess({ home: paths.home, log });
    this.access = access;
    this.extraListeners = this.register(new ExtraListeners({ log, start: (host, port) => this.startExtraListener(host, port) }));
    return { access, extraListeners: this.extraListeners, loopbackAddress: () => this.loopback?.address ?? null };
  }

  /** A `tend remote enable --listen` address: the API and the viewer sockets, behind the gate. */
  private async startExtraListener(host: string, port: number): Promise<StartedListener> {
    const listener = await startGatedListener({ handle: this.handleRequest!, log: this.options.log, host, port, gate: this.access!.gate });
    const sockets = this.viewerSocketsOn(listener);
    return { address: listener.address, dispose: () => { sockets.dispose(); listener.dispose(); } };
  }

  /** The running session a viewer socket's upgrade names (`?session=TARGET`), or why not: the viewer then asks the API. */
  private upgradeSession(target: string): UpgradeSession | UpgradeRefusal {
    let session: Session;
    try {
      session = this.registry.resolve(target);
    } catch (err) {
      if (err instanceof NoSuchSessionError || err instanceof AmbiguousTargetError || err instanceof EmptyTargetError) return { status: 404, reason: err.message };
      throw err;
    }
    if (session.status !== 'running') return { status: 409, reason: `session ${session.id} is ${session.status}` };
    return { id: session.id, name: session.name };
  }

  private viewerSocketsOn(listener: GatedListener) {
    return attachViewerSocket(listener.http, {
      boot: this.boot,
      version: TEND_VERSION,
      log: this.options.log,
      findSession: (id) => this.registry.list().find((s) => s.id === id)?.viewers,
      resolveSession: (target) => this.upgradeSession(target),
      refuseUpgrade: (req) => listener.upgradeRefusal(req),
    });
  }

  private async listen(): Promise<void> {
    const { paths, log } = this.options;
    const router = this.routes();
    // The browser app's files, then the API.
    const web = createStaticFiles();
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      if (!web.handle(req, res)) void router.handle(req, res, log);
    };
    this.handleRequest = handle;
    const http = createServer(handle);
    answerClientErrors(http);
    this.http = http;
    // We hold the pid lock, so a socket file here is a dead server's.
    try {
      unlinkSync(paths.serverSocket);
    } catch {
      /* none */
    }
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(paths.serverSocket, () => {
        http.off('error', reject);
        resolve();
      });
    });
    chmodSync(paths.serverSocket, 0o600);
    this.register(toDisposable(() => {
      http.close();
      http.closeAllConnections();
    }));
    // Registered after the http close, so disposed before it: closeAllConnections()
    // does not reach upgraded sockets.
    this.register(attachViewerSocket(http, {
      boot: this.boot,
      version: TEND_VERSION,
      log,
      findSession: (id) => this.registry.list().find((s) => s.id === id)?.viewers,
      resolveSession: (target) => this.upgradeSession(target),
      typistsMayReachHolders: true,
    }));
    // Browsers reach the same API on 127.0.0.1, behind the same-user gate. A
    // port in use is logged, and the unix socket still serves.
    this.loopback = await tryStartLoopbackListener({
      handle,
      log,
      port: this.options.loopbackPort ?? DEFAULT_LOOPBACK_PORT,
      portFile: join(paths.runtimeDir, 'port'),
      gate: this.access?.gate,
    });
    if (this.loopback) {
      const loopback = this.loopback;
      this.register(loopback);
      this.register(this.viewerSocketsOn(loopback));
    }
    if (this.access !== null) await this.extraListeners?.sync(this.access.settings.current);
  }

  /** Checkpoints and lets go of every holder, then closes the API. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.http?.close();
    this.loopback?.http.close();
    // Hooks that find the socket closed from here on spool their events: the next server applies them, not this one mid-shutdown.
    this.hookSpool?.dispose();
    // Holders of programs that ended while an upgrade checked this server stay for the next one.
    this.holderRelease?.dispose();
    await this.registry?.shutdown();
    await this.checkpoints?.drain();
    try {
      unlinkSync(this.options.paths.serverSocket);
    } catch {
      /* already gone */
    }
    this.dispose();
  }
}
