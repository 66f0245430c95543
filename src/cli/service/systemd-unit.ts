// The systemd user unit of a TEND_HOME's server, as text. The words follow
// systemd.syntax(7)'s quoting: "%" starts a specifier (written "%%"), "$"
// expands a variable in ExecStart= ("$$"), "\" escapes, double quotes group;
// a line ends a setting, so a newline cannot be written at all.
import type { ServiceCommand } from './service-command.js';

/**
 * Restart=on-failure with these spared: 2 (a setting such as TEND_PORT is
 * wrong) and 3 (another server holds TEND_HOME's lock): a restart cannot
 * help either, and the log says why (src/server/main.ts's exit statuses).
 */
const EXIT_STATUSES_NOT_RESTARTED = [2, 3];
const RESTART_DELAY_SECONDS = 1;
/** SIGTERM makes the server checkpoint every screen before it exits; give it time before SIGKILL. */
const STOP_TIMEOUT_SECONDS = 30;

const PLAIN_WORD = /^[A-Za-z0-9_@+=:,./~-]+$/;

export class UnitTextError extends Error {}

/** One word of a unit setting; `expandsVariables` for ExecStart=, where "$" must be doubled. */
export function systemdWord(text: string, expandsVariables: boolean): string {
  if (/[\n\r\0]/.test(text)) throw new UnitTextError(`${JSON.stringify(text)} holds a line break or NUL, which a systemd unit cannot hold`);
  if (PLAIN_WORD.test(text)) return text;
  let escaped = text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('%', '%%');
  if (expandsVariables) escaped = escaped.replaceAll('$', '$$');
  return `"${escaped}"`;
}

/** Free text (Description=, comments): only specifiers and line breaks matter. */
function unitText(text: string): string {
  if (/[\n\r\0]/.test(text)) throw new UnitTextError(`${JSON.stringify(text)} holds a line break or NUL, which a systemd unit cannot hold`);
  return text.replaceAll('%', '%%');
}

export function renderSystemdUnit(command: ServiceCommand, home: string): string {
  const execStart = [command.program, ...command.args].map((w) => systemdWord(w, true)).join(' ');
  const environment = command.env.map(([name, value]) => `Environment=${systemdWord(`${name}=${value}`, false)}`);
  return [
    '# Written by `tend service install`; `tend service uninstall` removes it.',
    '# The server runs in the foreground; each terminal\'s holder runs in a',
    '# scope of its own (tend-holder-*.scope), outside this unit, and',
    '# KillMode=process stops only the server: stopping or restarting this',
    '# unit closes no terminal.',
    '[Unit]',
    `Description=tend server (TEND_HOME ${unitText(home)})`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${execStart}`,
    ...environment,
    'WorkingDirectory=~',
    'Restart=on-failure',
    `RestartSec=${RESTART_DELAY_SECONDS}`,
    `RestartPreventExitStatus=${EXIT_STATUSES_NOT_RESTARTED.join(' ')}`,
    'KillMode=process',
    `TimeoutStopSec=${STOP_TIMEOUT_SECONDS}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
