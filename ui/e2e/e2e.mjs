// End-to-end test of the panel UI in a real browser (Debian Chromium via
// playwright-core) against the demo game server, which it starts itself:
//
//   npm run e2e            (from ui/; needs Go, and /usr/bin/chromium or CHROMIUM)
//
// It prints one line per step and a final "N passed, M failed"; it exits
// non-zero on failure, and stops the server and the browser in every case.
// Screenshots go to $E2E_SHOTS or a fresh temporary directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gameadmin-e2e-'));
const shots = process.env.E2E_SHOTS || path.join(tmp, 'shots');
fs.mkdirSync(shots, { recursive: true });
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const admin = { email: 'e2e-admin@example.com', password: 'correct horse battery' };

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

let server;
let serverLog = '';
let browser;

function startServer(port) {
  // Its own process group, so that stopping it also stops the binary that
  // `go run` starts.
  server = spawn('go', ['run', './examples/gameserver', '-seed', '-db', `sqlite:${tmp}/e2e.db`, '-addr', `127.0.0.1:${port}`], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ADMIN_JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123' },
  });
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
}

async function waitForServer(base, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error('the server exited:\n' + serverLog);
    try {
      const res = await fetch(base + '/admin-api/auth/status');
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not answer in time:\n' + serverLog);
}

async function stopServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const kill = (sig) => {
    try {
      process.kill(-server.pid, sig);
    } catch {
      // gone already
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

let passed = 0;
let failed = 0;
let page;

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : err}`);
    if (page) await page.screenshot({ path: path.join(shots, `FAIL-${name.replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => {});
    throw err;
  }
}

const shot = (name) => page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true });

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

async function run() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  startServer(port);
  await step('demo server starts', () => waitForServer(base, 240_000));

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const consoleErrors = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  await step('first visit offers "Create the first admin"', async () => {
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Create the first admin' }).waitFor();
    expect((await page.getByText(/forgot/i).count()) === 0, 'a "forgot password" link is shown');
    await shot('01-bootstrap');
  });

  await step('bootstrap the first admin and see the dashboard', async () => {
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel(/^Password/).fill(admin.password);
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('article', { name: 'Totals' }).waitFor();
    await page.getByRole('banner').getByText(admin.email).waitFor();
    await page.getByRole('article', { name: 'Recent users' }).getByText('player50@example.com').waitFor();
    await shot('02-dashboard');
  });

  await step('open Guilds from the sidebar', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    await page.getByRole('cell', { name: 'Iron Wolves' }).waitFor();
    expect((await page.locator('tbody tr').count()) === 10, 'expected the 10 seeded guilds');
    await shot('03-guilds');
  });

  await step('sort guilds by clicking a header', async () => {
    const firstName = () => page.locator('tbody tr').first().locator('td').nth(1).innerText();
    const before = await firstName();
    await page.getByRole('button', { name: 'Name' }).click(); // default sort is name asc: now desc
    await page.waitForURL(/_sort=name&_order=desc/);
    await page.waitForFunction((b) => document.querySelector('tbody tr td:nth-child(2)')?.textContent !== b, before);
    const after = await firstName();
    expect(after.localeCompare(before) > 0, `descending order should start after "${before}", got "${after}"`);
    expect((await page.locator('th[aria-sort="descending"]').innerText()).includes('Name'), 'Name header not marked descending');
  });

  await step('filter guilds by a column', async () => {
    await page.getByLabel('Filter column').selectOption('name');
    await page.getByLabel('Filter operator').selectOption('like');
    await page.getByLabel('Filter value').fill('Sky');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.waitForURL(/name_like=Sky/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.getByRole('cell', { name: 'Sky Pirates' }).waitFor();
    await shot('03b-guilds-filtered');
    await page.getByRole('button', { name: 'Remove filter name_like' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 10);
  });

  await step('search guilds', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('Iron');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/_q=Iron/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.getByRole('cell', { name: 'Iron Wolves' }).waitFor();
    await page.getByText(/1–1 of 1/).waitFor();
  });

  await step('open a guild', async () => {
    await page.locator('tbody tr').first().locator('td').first().getByRole('link').click();
    await page.getByRole('heading', { name: /Guilds \/ \d+/ }).waitFor();
    await page.locator('dd', { hasText: 'Iron Wolves' }).waitFor();
    await page.locator('dd a', { hasText: /Player \d+/ }).waitFor(); // owner_id shows the owner's label
    await shot('04-guild');
  });

  await step("edit the guild's name", async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    const name = page.getByLabel(/^Name/);
    await name.waitFor();
    await name.fill('Iron Wolves Reborn');
    await shot('05-guild-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: /Guilds \/ \d+/ }).waitFor();
    await page.locator('dd', { hasText: 'Iron Wolves Reborn' }).waitFor();
  });

  await step('run the recount bulk action', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('cell', { name: 'Iron Wolves Reborn' }).waitFor();
    await page.getByRole('button', { name: 'Recount' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run "Recount"?' });
    await dialog.waitFor();
    await shot('06-recount-confirm');
    await dialog.getByRole('button', { name: 'Recount' }).click();
    await page.getByText('Recount: done').waitFor();
    await shot('07-recount-toast');
  });

  await step('create a config with a JSON value', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Configs' }).click();
    await page.getByRole('heading', { name: 'Configs' }).waitFor();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByLabel(/^Key/).fill('e2e.motd');
    await page.getByLabel(/^Value/).fill('{"text": not json');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Not valid JSON.').waitFor();
    await page.getByLabel(/^Value/).fill('{"text": "Welcome back"}');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /Configs \/ e2e\.motd/ }).waitFor();
    await page.locator('dd', { hasText: 'Welcome back' }).waitFor();
  });

  let playerEmail = 'player07@example.com';
  await step('open Users and a player', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill(playerEmail);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.locator('tbody tr').first().locator('td').first().getByRole('link').click();
    await page.locator('dd', { hasText: playerEmail }).waitFor();
    await page.getByRole('tab', { name: /Analytics Events/ }).waitFor();
    await page.getByText('Not banned.').waitFor();
    await shot('08-user');
  });

  await step('ban the player from its page', async () => {
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban user' });
    await dialog.getByLabel(/Reason/).fill('e2e: cheating');
    await shot('09-ban-dialog');
    await dialog.getByRole('button', { name: 'Ban' }).click();
    await page.getByText(/Banned; sessions closed: \d+/).waitFor();
    await page.getByText(/^Banned:/).waitFor();
    await page.getByRole('button', { name: 'Unban' }).waitFor();
    await shot('10-banned');
  });

  await step('the audit log shows user.ban', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const row = page.locator('tbody tr', { hasText: 'user.ban' });
    await row.first().waitFor();
    expect((await row.first().getByRole('link').count()) >= 2, 'the audit row should link its operator and target');
    await page.locator('tbody tr', { hasText: 'custom' }).first().waitFor();
    await shot('11-audit');
  });

  await step('sign out', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('12-signed-out');
  });

  await step('a deep link needs sign-in and comes back after it', async () => {
    await page.goto(base + '/admin/guilds?_q=Frost');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page.url().includes('next=%2Fadmin%2Fguilds%3F_q%3DFrost'), 'next= is missing: ' + page.url());
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('cell', { name: 'Frost Giants' }).waitFor();
    expect(new URL(page.url()).pathname === '/admin/guilds', 'landed on ' + page.url());
  });

  await step('no errors in the browser console', async () => {
    expect(consoleErrors.length === 0, 'console errors:\n  ' + consoleErrors.join('\n  '));
  });
}

let exitCode = 0;
try {
  await run();
} catch {
  exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  await stopServer();
}
if (failed > 0 || passed === 0) exitCode = 1;
console.log(`screenshots: ${shots}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
