// Loading the shell integration into shells tend starts, without touching the
// user's rc files: the shell is pointed at startup files tend writes, which
// load the user's usual ones first and the snippet last.
//   bash: --rcfile FILE. A login shell ignores --rcfile, so -l/--login is
//         dropped and FILE reads the login files itself (TEND_SHELL_LOGIN).
//   zsh:  ZDOTDIR=DIR, whose .zshenv/.zprofile/.zshrc/.zlogin each source the
//         user's file of the same name (from the user's ZDOTDIR, or $HOME) and
//         hand ZDOTDIR back to the user's value once startup is over.
//   fish: --init-command, which fish runs after its config files.
// Only plain interactive invocations are changed (no arguments, or just
// -i/-l/--login); a shell given a script, -c, or its own rc options is left
// alone, and so is any other program.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BASH_SNIPPET } from './bash.js';
import { FISH_SNIPPET } from './fish.js';
import { shellSource } from './shell-source.js';
import { ZSH_SNIPPET } from './zsh.js';

export interface InjectedLaunch {
  argv: string[];
  env: Record<string, string>;
}

const LOGIN_FLAGS = new Set(['-l', '--login']);
const BASH_ZSH_FLAGS = new Set(['-i', ...LOGIN_FLAGS]);
const FISH_FLAGS = new Set(['-i', '--interactive', ...LOGIN_FLAGS]);

/**
 * Returns argv/env that start the same shell with tend's integration loaded,
 * writing the startup files it needs under `dir`; for anything it does not
 * know how to inject into, returns copies of the input unchanged.
 */
export function injectShellIntegration(argv: string[], env: Record<string, string>, dir: string): InjectedLaunch {
  const unchanged = { argv: [...argv], env: { ...env } };
  const program = argv[0];
  if (program === undefined) return unchanged;
  const args = argv.slice(1);
  // A leading '-' on argv[0] is the login-shell convention; the name is what follows.
  const shell = basename(program).replace(/^-/, '');
  switch (shell) {
    case 'bash':
      return args.every((a) => BASH_ZSH_FLAGS.has(a)) ? injectBash(program, args, env, dir) : unchanged;
    case 'zsh':
      return args.every((a) => BASH_ZSH_FLAGS.has(a)) ? injectZsh(program, args, env, dir) : unchanged;
    case 'fish':
      return args.every((a) => FISH_FLAGS.has(a)) ? injectFish(program, args, env, dir) : unchanged;
    default:
      return unchanged;
  }
}

function injectBash(program: string, args: string[], env: Record<string, string>, dir: string): InjectedLaunch {
  const rcFile = join(dir, 'bash', 'tend-rc.bash');
  writeStartupFile(rcFile, BASH_RC + BASH_SNIPPET);
  const login = args.some((a) => LOGIN_FLAGS.has(a));
  const outEnv = { ...env };
  if (login) outEnv['TEND_SHELL_LOGIN'] = '1';
  else delete outEnv['TEND_SHELL_LOGIN'];
  return { argv: [program, '--rcfile', rcFile, '-i'], env: outEnv };
}

// What bash would have read itself, given --rcfile in place of ~/.bashrc.
const BASH_RC = shellSource`# Written by tend: the user's usual startup files, then tend's shell integration.
if [ -n "\${TEND_SHELL_LOGIN-}" ]; then
  unset TEND_SHELL_LOGIN
  if [ -r /etc/profile ]; then . /etc/profile; fi
  if [ -r ~/.bash_profile ]; then . ~/.bash_profile
  elif [ -r ~/.bash_login ]; then . ~/.bash_login
  elif [ -r ~/.profile ]; then . ~/.profile
  fi
else
  if [ -r ~/.bashrc ]; then . ~/.bashrc; fi
fi
`;

function injectZsh(program: string, args: string[], env: Record<string, string>, dir: string): InjectedLaunch {
  const zdotdir = join(dir, 'zsh');
  writeStartupFile(join(zdotdir, '.zshenv'), ZSH_ENV);
  writeStartupFile(join(zdotdir, '.zprofile'), zshForward('.zprofile'));
  writeStartupFile(join(zdotdir, '.zshrc'), zshForward('.zshrc') + ZSH_SNIPPET + ZSH_RC_END);
  writeStartupFile(join(zdotdir, '.zlogin'), zshForward('.zlogin') + ZSH_HAND_BACK);
  const outEnv: Record<string, string> = { ...env, ZDOTDIR: zdotdir };
  if (env['ZDOTDIR'] !== undefined) outEnv['TEND_USER_ZDOTDIR'] = env['ZDOTDIR'];
  else delete outEnv['TEND_USER_ZDOTDIR'];
  return { argv: [program, ...args], env: outEnv };
}

// The user's .zshenv may itself set ZDOTDIR (to move their files elsewhere):
// whatever ZDOTDIR holds after it is where their other files are.
const ZSH_ENV = shellSource`# Written by tend: forwards to the user's startup files (see .zshrc).
typeset -g __tend_si_zdotdir=$ZDOTDIR
typeset -g __tend_si_had_zdotdir=\${TEND_USER_ZDOTDIR+1}
ZDOTDIR=\${TEND_USER_ZDOTDIR-$HOME}
unset TEND_USER_ZDOTDIR
if [[ -f $ZDOTDIR/.zshenv ]]; then builtin source $ZDOTDIR/.zshenv; fi
typeset -g __tend_si_user_zdotdir=$ZDOTDIR
ZDOTDIR=$__tend_si_zdotdir
`;

function zshForward(file: string): string {
  return shellSource`# Written by tend: forwards to the user's ${file}.
ZDOTDIR=$__tend_si_user_zdotdir
if [[ -f $ZDOTDIR/${file} ]]; then builtin source $ZDOTDIR/${file}; fi
__tend_si_user_zdotdir=$ZDOTDIR
ZDOTDIR=$__tend_si_zdotdir
`;
}

// Once the last startup file has run, ZDOTDIR goes back to what the user had
// (unset if it was unset and their files did not set it), so child shells
// and tools see the user's setup, not tend's.
const ZSH_HAND_BACK = shellSource`
if [[ -z $__tend_si_had_zdotdir && $__tend_si_user_zdotdir == $HOME ]]; then
  unset ZDOTDIR
else
  export ZDOTDIR=$__tend_si_user_zdotdir
fi
unset __tend_si_zdotdir __tend_si_had_zdotdir __tend_si_user_zdotdir
`;

// A login shell reads .zlogin after .zshrc, and zsh finds it through ZDOTDIR,
// so only a non-login shell hands ZDOTDIR back here.
const ZSH_RC_END = shellSource`
if [[ ! -o login ]]; then
${ZSH_HAND_BACK}
fi
`;

function injectFish(program: string, args: string[], env: Record<string, string>, dir: string): InjectedLaunch {
  const file = join(dir, 'fish', 'tend.fish');
  writeStartupFile(file, FISH_SNIPPET);
  return { argv: [program, ...args, '--init-command', `source ${fishQuote(file)}`], env: { ...env } };
}

/** A fish single-quoted string: only backslash and quote are special inside. */
function fishQuote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

// Written whole and renamed into place: sessions starting at the same moment
// may read the file while another rewrites it.
function writeStartupFile(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, path);
}
