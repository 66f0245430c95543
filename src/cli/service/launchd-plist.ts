// The launchd agent of a TEND_HOME's server, as a property list (launchd.plist(5)).
// KeepAlive restarts the server when it fails, not when it was asked to stop;
// AbandonProcessGroup keeps launchd from killing what is left in the job's
// process group when the server ends (holders leave it with setsid already:
// this is the second guard); ExitTimeOut is how long a stop waits for the
// server's last checkpoints before SIGKILL.
import { join } from 'node:path';
import type { ServiceCommand } from './service-command.js';

/** The server checkpoints every screen on SIGTERM; launchd's own default is 20 s. */
const EXIT_TIMEOUT_SECONDS = 30;

export class PlistTextError extends Error {}

/** XML 1.0 allows tab, newline and carriage return among the control characters; no others. */
const NOT_IN_XML = /[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;

function xmlText(text: string): string {
  if (NOT_IN_XML.test(text)) throw new PlistTextError(`${JSON.stringify(text)} holds a control character a property list cannot hold`);
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

const string = (text: string) => `<string>${xmlText(text)}</string>`;
const key = (name: string) => `<key>${xmlText(name)}</key>`;

export function renderLaunchdPlist(command: ServiceCommand, label: string, logsDir: string): string {
  const indent = (lines: string[], depth: number) => lines.map((l) => `${'\t'.repeat(depth)}${l}`);
  const home = command.env.find(([name]) => name === 'HOME')?.[1];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `tend service install`; `tend service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    ...indent([
      key('Label'), string(label),
      key('ProgramArguments'), '<array>',
      ...indent([command.program, ...command.args].map(string), 1),
      '</array>',
      key('EnvironmentVariables'), '<dict>',
      ...indent(command.env.flatMap(([name, value]) => [key(name), string(value)]), 1),
      '</dict>',
      ...(home !== undefined ? [key('WorkingDirectory'), string(home)] : []),
      key('RunAtLoad'), '<true/>',
      key('KeepAlive'), '<dict>',
      ...indent([key('SuccessfulExit'), '<false/>', key('Crashed'), '<true/>'], 1),
      '</dict>',
      key('AbandonProcessGroup'), '<true/>',
      key('ExitTimeOut'), `<integer>${EXIT_TIMEOUT_SECONDS}</integer>`,
      key('ProcessType'), string('Interactive'),
      // What the server says before its log is open (a bad setting, a lock held).
      key('StandardErrorPath'), string(join(logsDir, 'launchd.log')),
    ], 1),
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
