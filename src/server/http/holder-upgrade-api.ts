// POST /v1/holders/upgrade over HTTP: the request's checks, then the server
// core's hand-over (../holder-upgrade.ts), one holder at a time.
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { MAX_UPGRADE_TARGETS, type UpgradeHoldersReply } from '../../protocol/api/index.js';
import { EXEC_PATH_MAX_BYTES } from '../../protocol/holder-frames.js';
import { thisServersHolder, upgradeHolders, type HolderUpgradeDeps } from '../holder-upgrade.js';
import { badRequest } from './errors.js';
import type { Router } from './router.js';
import { optString, optStringArray } from './validate.js';

function checkHolderPath(path: string): string {
  if (!isAbsolute(path)) throw badRequest(`"holderPath" must be an absolute path, not ${JSON.stringify(path)}`);
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    accessSync(path, constants.X_OK);
  } catch (err) {
    throw badRequest(`"holderPath" ${path} is not an executable file: ${(err as Error).message}`);
  }
  return path;
}

export function addHolderUpgradeRoute(router: Router, deps: HolderUpgradeDeps): void {
  router.add('upgradeHolders', async (req) => {
    const body = await req.json();
    const holderPath = checkHolderPath(optString(body, 'holderPath', { max: EXEC_PATH_MAX_BYTES }) ?? thisServersHolder(deps));
    const names = optStringArray(body, 'sessions', { maxItems: MAX_UPGRADE_TARGETS, maxLength: 200 });
    // A named session is resolved (a 404 for one that is not there); by default, every running one.
    const targets = names === undefined ? deps.registry.list().filter((s) => s.status === 'running') : names.map((t) => deps.registry.resolve(t));
    return { status: 200, json: await upgradeHolders(deps, holderPath, targets) satisfies UpgradeHoldersReply };
  });
}

