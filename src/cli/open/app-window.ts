// `tend open --app`: the browser app in a window of its own, with no tabs or
// address bar, by an installed Chromium-family browser in app mode
// (`--app=URL`) — tend gets a desktop window without shipping a browser.
// Found on PATH on Linux, as an .app bundle on macOS; with none, the
// default browser opens the page, and the verb says so.
//
// The window runs in a profile of tend's own (TEND_HOME/browser-profile),
// not the person's everyday one:
// * Chromium hands a URL to the browser already running on the same
//   profile, so without one of its own the window would be a window of the
//   person's main browser: the same process and dock/taskbar entry, closed
//   with it.
// * The person's extensions stay out: one that takes keys (Vimium and the
//   like) would take them from the terminal.
// * A second `tend open --app` finds tend's own browser running and opens
//   another window in it, rather than a second browser.
// The cost: cookies and settings are not the main browser's — tend's page
// needs none on this machine (a local caller is trusted without a login).
//
// A snap-packaged browser (Ubuntu's chromium) may not write under a hidden
// directory of the home (~/.tend): it runs with its own profile instead.
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from './find-program.js';

/** Looked for on PATH on Linux (and other Unixes), in this order. */
export const APP_BROWSER_PROGRAMS = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'brave-browser',
  'microsoft-edge',
  'microsoft-edge-stable',
] as const;

/** Looked for in /Applications and ~/Applications on macOS, in this order. */
export const APP_BROWSER_BUNDLES = ['Google Chrome.app', 'Chromium.app', 'Brave Browser.app', 'Microsoft Edge.app'] as const;

/**
 * Extra arguments for the browser, split at white space (no quoting): for
 * tests and scripts (a headless window with a DevTools port, say).
 */
export const APP_BROWSER_ARGS_ENV = 'TEND_APP_BROWSER_ARGS';

/** The profile directory's name under TEND_HOME. */
export const BROWSER_PROFILE_DIR_NAME = 'browser-profile';

export type OpenPlan =
  | {
      kind: 'app-window';
      /** The program or bundle found: "chromium", "Google Chrome.app". */
      browser: string;
      /** What runs: argv, the program first. */
      command: string[];
      /** tend's profile for the window; null when the browser cannot use it. */
      profileDir: string | null;
      /** Something the person should know (a profile not used), or null. */
      note: string | null;
    }
  | {
      kind: 'default-browser';
      /** The desktop's opener with the URL; null when there is none. */
      command: string[] | null;
      /** Why no app window, and what happens instead. */
      note: string;
    };

export interface OpenPlanOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** TEND_HOME: the profile goes under it. */
  home: string;
}

interface FoundBrowser {
  name: string;
  /** The executable (Linux) or the .app bundle (macOS). */
  path: string;
}

/** How `tend open --app` would open `url` on this machine (nothing is run). */
export function planAppWindow(url: string, options: OpenPlanOptions): OpenPlan {
  const { env, platform } = options;
  const found = platform === 'darwin' ? findBundle(env) : findProgram(env);
  if (found === null) {
    const looked = platform === 'darwin' ? `${APP_BROWSER_BUNDLES.join(', ')} in /Applications` : `${APP_BROWSER_PROGRAMS.join(', ')} on PATH`;
    const opener = defaultOpener(url, env, platform);
    const instead = opener ? 'opening the default browser instead' : `and no ${platform === 'darwin' ? 'open' : 'xdg-open'} to open the default browser either: open the address yourself`;
    return { kind: 'default-browser', command: opener, note: `no Chromium-family browser found (looked for ${looked}); ${instead}` };
  }
  const snap = platform !== 'darwin' && isSnap(found.path);
  const profileDir = snap ? null : join(options.home, BROWSER_PROFILE_DIR_NAME);
  const browserArgs = [
    ...(profileDir !== null ? [`--user-data-dir=${profileDir}`] : []),
    // A new profile would otherwise start with a welcome page and a default-browser question.
    '--no-first-run',
    '--no-default-browser-check',
    ...extraArgs(env),
    `--app=${url}`,
  ];
  // open -n: a new instance even if the browser runs; it hands the window to the one on the same profile, if any.
  const command = platform === 'darwin' ? ['open', '-na', found.path, '--args', ...browserArgs] : [found.path, ...browserArgs];
  const note = snap ? `${found.name} is a snap, which may not write under ${options.home}: the window opens in the browser's own profile` : null;
  return { kind: 'app-window', browser: found.name, command, profileDir, note };
}

/** The desktop's way to open a URL in the default browser, if it has one. */
export function defaultOpener(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] | null {
  const opener = platform === 'darwin' ? 'open' : 'xdg-open';
  const path = findOnPath(opener, env);
  return path === null ? null : [path, url];
}

function findProgram(env: NodeJS.ProcessEnv): FoundBrowser | null {
  for (const name of APP_BROWSER_PROGRAMS) {
    const path = findOnPath(name, env);
    if (path !== null) return { name, path };
  }
  return null;
}

function findBundle(env: NodeJS.ProcessEnv): FoundBrowser | null {
  const dirs = ['/Applications', join(env.HOME ?? homedir(), 'Applications')];
  for (const name of APP_BROWSER_BUNDLES) {
    for (const dir of dirs) {
      const path = join(dir, name);
      try {
        if (statSync(path).isDirectory()) return { name, path };
      } catch {
        /* not there */
      }
    }
  }
  return null;
}

/** /snap/bin/NAME, a link to the snap program that starts the confined browser. */
function isSnap(path: string): boolean {
  if (path.startsWith('/snap/')) return true;
  try {
    return realpathSync(path).endsWith('/snap');
  } catch {
    return false;
  }
}

function extraArgs(env: NodeJS.ProcessEnv): string[] {
  return (env[APP_BROWSER_ARGS_ENV] ?? '').split(/\s+/).filter((arg) => arg !== '');
}
