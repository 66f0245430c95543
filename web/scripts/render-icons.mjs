#!/usr/bin/env node
// Renders the app icons' PNGs (web app manifest, apple-touch-icon) from the
// SVGs in web/public with the same headless Chromium the browser tests use:
//   node web/scripts/render-icons.mjs [path-to-chromium]
// The PNGs are committed; run this again after changing an SVG.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const publicDir = fileURLToPath(new URL('../public/', import.meta.url));
const executablePath = process.argv[2] ?? '/usr/bin/chromium';

const jobs = [
  { svg: 'icon.svg', out: 'icon-192.png', size: 192 },
  { svg: 'icon.svg', out: 'icon-512.png', size: 512 },
  { svg: 'icon-maskable.svg', out: 'icon-maskable-512.png', size: 512 },
];

const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const job of jobs) {
    const page = await browser.newPage({ viewport: { width: job.size, height: job.size } });
    const svg = readFileSync(join(publicDir, job.svg), 'utf8');
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><img style="display:block;width:${job.size}px;height:${job.size}px" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}"></body></html>`,
    );
    await page.locator('img').evaluate((img) => img.decode());
    await page.screenshot({ path: join(publicDir, job.out), omitBackground: true });
    await page.close();
    console.log(`${job.out} (${job.size}×${job.size})`);
  }
} finally {
  await browser.close();
}
