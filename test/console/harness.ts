/**
 * The console's test harness: the demo server (`npm start`) as a child process on a free port, Debian's
 * Chromium through playwright-core, and the few steps every scenario takes on the console page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import type { ServerEventRecord } from '../../demo/console/events.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SHOTS = `${ROOT}results/console`;
const README_SCREENSHOT = `${ROOT}docs/console.png`;
const CHROMIUM = '/usr/bin/chromium';
/** How long any one step may take: a click, a dialog, a tool's answer. */
export const STEP_MS = 10_000;

export interface Demo {
  process: ChildProcess;
  /** The console's URL, as the demo printed it: http://127.0.0.1:<port>/ */
  url: string;
  /** Everything it printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** `node --import tsx demo/server.ts` with PORT=0; resolves with the console URL its first line prints. */
export async function startDemo(): Promise<Demo> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the demo printed no console URL within 30 s:\n${out}`)), 30_000);
      child.stdout!.on('data', () => {
        const match = /^Switchboard console: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the demo exited with ${code}:\n${out}`));
      });
    });
    return { process: child, url, output: () => out, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Headless Chromium; fails (never skips) when Debian's chromium is not installed. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the console's browser test needs Debian's chromium package, which .ci/run installs (apt-get install chromium)`);
  }
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A console page with its errors collected: a page error fails the scenario that caused it. */
export async function openConsole(browser: Browser, url: string, colorScheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; problems: string[] }> {
  // A fixed zone, so that a datetime-local value has a known offset (Lisbon: +01:00 in September).
  const context = await browser.newContext({ viewport: { width: 1440, height: 960 }, timezoneId: 'Europe/Lisbon', locale: 'en-GB', colorScheme });
  context.setDefaultTimeout(STEP_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(url, { timeout: STEP_MS });
  await page.locator('#feed[data-state="live"]').waitFor();
  return { page, problems };
}

/** Choose the transport and the era (and the server, when not the demo's own /mcp), connect, and wait for the tools. */
export async function connect(page: Page, transport: 'WebSocket' | 'Streamable HTTP', era: 'Auto' | 'Legacy' | 'Modern', url?: string): Promise<void> {
  await page.getByRole('radio', { name: transport }).check();
  await page.getByRole('radio', { name: era }).check();
  if (url !== undefined) await page.getByLabel('Server URL').fill(url);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.locator('#status[data-state="connected"]').waitFor();
  await page.locator('#tools li.tool').first().waitFor();
}

/** Open a tool's panel; returns its form. */
export async function openTool(page: Page, name: string): Promise<Locator> {
  const item = page.locator(`li.tool[data-tool="${name}"]`);
  const details = item.locator('details');
  if ((await details.getAttribute('open')) === null) await item.locator('summary').click();
  return item.locator('form.tool-form');
}

/** Press the tool's Call button (after filling its arguments). */
export async function call(page: Page, name: string, args: Record<string, string> = {}): Promise<Locator> {
  const form = await openTool(page, name);
  for (const [field, value] of Object.entries(args)) await form.locator(`[data-field="${field}"] input, [data-field="${field}"] textarea`).first().fill(value);
  await form.getByRole('button', { name: 'Call' }).click();
  return form;
}

/** The tool's result, once it has one (ok, error, failed or cancelled). */
export async function result(form: Locator): Promise<{ state: string; text: string }> {
  const box = form.locator('.result:not([data-state="running"])');
  await box.waitFor();
  return { state: (await box.getAttribute('data-state')) ?? '', text: (await box.textContent()) ?? '' };
}

/** The open dialog: what the server asks. */
export function dialog(page: Page): Locator {
  return page.locator('dialog#ask[open]');
}

/** The server's events of one name, as the page logged them from /events (the JSON behind each entry's toggle). */
export async function serverEvents(page: Page, event: string): Promise<ServerEventRecord[]> {
  return page
    .locator(`#log > li[data-kind="server-event"][data-event="${event}"] pre`)
    .evaluateAll((pres) => pres.map((pre) => JSON.parse(pre.textContent ?? 'null')));
}

/** Wait until the page has logged `count` events of this name; returns them all. */
export async function waitForServerEvents(page: Page, event: string, count: number): Promise<ServerEventRecord[]> {
  await page
    .locator(`#log > li[data-kind="server-event"][data-event="${event}"]`)
    .nth(count - 1)
    .waitFor({ state: 'attached' });
  return serverEvents(page, event);
}

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  // Animations finished: the dialog fades in.
  await page.screenshot({ path: `${SHOTS}/${name}.png`, timeout: STEP_MS, animations: 'disabled', fullPage });
  // The README's picture is this one: UPDATE_README_SCREENSHOT=1 refreshes it from the console as it is.
  if (name === 'console' && process.env.UPDATE_README_SCREENSHOT === '1') copyFileSync(`${SHOTS}/${name}.png`, README_SCREENSHOT);
}
