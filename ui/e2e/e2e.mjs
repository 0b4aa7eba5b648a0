// End-to-end test of the panel UI in a real browser (Debian Chromium via
// playwright-core) against the demo game server, which it starts itself:
//
//   npm run e2e            (from ui/; needs Go, and /usr/bin/chromium or CHROMIUM)
//
// It prints one line per step and a final "N passed, M failed"; it exits
// non-zero on failure, and stops the server, the bot players and the
// browser in every case. The bots (examples/gameserver/bot, built once into
// the temporary directory) give the Live rooms steps an arena with clients.
// Screenshots go to $E2E_SHOTS or a fresh temporary directory.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gameadmin-e2e-'));
const shots = process.env.E2E_SHOTS || path.join(tmp, 'shots');
fs.mkdirSync(shots, { recursive: true });
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const admin = { email: 'e2e-admin@example.com', password: 'correct horse battery' };
// axe-core's browser build, evaluated in each page audited (through the
// DevTools protocol, which the panel's CSP does not govern).
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// The German catalogs, for the German walk: a step looks its texts up
// here (by the English text, the key), so a better German word never
// breaks it.
const localesDir = path.join(repo, 'ui/src/locales');
const deCatalog = Object.assign(
  {},
  ...fs.readdirSync(path.join(localesDir, 'de')).map((f) => JSON.parse(fs.readFileSync(path.join(localesDir, 'de', f), 'utf8'))),
);
const de = (english) => {
  const v = deCatalog[english];
  if (!v) throw new Error(`no German for "${english}" in ui/src/locales/de`);
  return v;
};
// deRe is the German of a text with {{placeholders}} as a pattern: those
// given in vars as their values, the others as any words.
const deRe = (english, vars = {}) =>
  new RegExp(de(english).split(/(\{\{\w+\}\})/).map((part) => {
    const name = /^\{\{(\w+)\}\}$/.exec(part)?.[1];
    const text = name === undefined ? part : name in vars ? String(vars[name]) : null;
    return text === null ? '.+' : text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join(''));

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
// The servers of the runs on PostgreSQL and MariaDB, each with the
// database it made: stopped and dropped at the end.
const dbRuns = [];
let browser;
let bots;
let botLog = '';
const botBin = path.join(tmp, 'bot');

// run runs a command to its end, rejecting with its output when it fails.
function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}\n${out}`))));
  });
}

// startBots connects n bot players (player01..n of the seed) to the arena,
// in their own process group like the server.
function startBots(base, n) {
  bots = spawn(botBin, ['-n', String(n), '-addr', base, '-duration', '120s'], { cwd: repo, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  bots.stdout.on('data', (d) => (botLog += d));
  bots.stderr.on('data', (d) => (botLog += d));
}

// botsJoined resolves once n bots have logged "joined" (each after its
// WebSocket is in the arena), and rejects if they exit or time runs out.
function botsJoined(n, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if ((botLog.match(/ joined/g) ?? []).length < n) return;
      done();
      resolve();
    };
    const fail = (why) => {
      done();
      reject(new Error(`${why}; bot log:\n${botLog}`));
    };
    const timer = setTimeout(() => fail(`${n} bots did not join in ${timeoutMs} ms`), timeoutMs);
    const onExit = () => fail('the bots exited');
    const done = () => {
      clearTimeout(timer);
      bots.stderr.off('data', check);
      bots.off('exit', onExit);
    };
    bots.stderr.on('data', check);
    bots.once('exit', onExit);
    check();
  });
}

// spawnServer starts the demo on database db, in its own process group,
// so that stopping it also stops the binary that `go run` starts.
function spawnServer(port, db, onOutput) {
  const child = spawn('go', ['run', './examples/gameserver', '-seed', '-db', db, '-addr', `127.0.0.1:${port}`], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ADMIN_JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123' },
  });
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  return child;
}

function startServer(port) {
  server = spawnServer(port, `sqlite:${tmp}/e2e.db`, (d) => (serverLog += d));
}

async function waitForServer(base, timeoutMs, child = server, log = () => serverLog) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the server exited:\n' + log());
    try {
      const res = await fetch(base + '/admin-api/auth/status');
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not answer in time:\n' + log());
}

// stopGroup stops a detached child and everything in its process group.
async function stopGroup(child) {
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // gone already
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

// An interrupted run still stops its children.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    for (const c of [bots, server, ...dbRuns.map((r) => r.server)]) {
      try {
        if (c?.pid) process.kill(-c.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    process.exit(130);
  });
}

let passed = 0;
let failed = 0;
let page;

// audit runs axe-core on what the page shows at the end of a step; a
// "serious" or "critical" finding fails the step. Each page (path, theme
// and width) is audited once, dialogs open or not.
const audited = new Set();
async function audit() {
  if (!page || page.isClosed()) return;
  const key = await page.evaluate(() => [location.pathname, document.documentElement.dataset.theme, innerWidth, !!document.querySelector('[role=dialog],[role=menu]')].join(' '));
  if (audited.has(key)) return;
  audited.add(key);
  // Colours are measured at rest: a toast half faded in is not a finding.
  await page.evaluate(() =>
    Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished.catch(() => {}))),
  );
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    // @ts-ignore -- axe is the global axe.min.js defines
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  if (found.length > 0) throw new Error(`axe-core on ${key}:\n  ` + found.join('\n  '));
}

let currentStep = '';
async function step(name, fn) {
  currentStep = name;
  const t0 = Date.now();
  try {
    await fn();
    await audit();
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

// shotEveryLook takes name-<theme>-<width> in light and dark at 390 and
// 1440 px, each audited, then puts the page back (1280 px, its theme).
async function shotEveryLook(name) {
  for (const theme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await shot(`${name}-${theme}-${width}`);
      await audit();
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.evaluate(() => { document.documentElement.dataset.theme = localStorage.getItem('theme') || 'light'; });
}

// waitFocus waits (2 s at most) for the element to hold focus: dialogs give
// it back in an effect after they close.
async function waitFocus(locator, message) {
  const el = await locator.elementHandle();
  await page.waitForFunction((e) => e === document.activeElement, el, { timeout: 2000 }).catch(() => {
    throw new Error(message);
  });
}

// countSettles is the number of elements locator matches once it has
// stopped changing for 300 ms (at most 10 s): a list counted right after
// its heading or one cell shows may still hold the page before.
async function countSettles(locator) {
  let last = -1;
  let since = Date.now();
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const n = await locator.count();
    if (n !== last) [last, since] = [n, Date.now()];
    else if (n > 0 && Date.now() - since >= 300) break;
  }
  return last;
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

// apiReader reads the API of the server at base as the page's operator:
// apiJSON('/guilds?name=…') is the answer's JSON, failing the step on an
// error status.
const apiReader = (base) => async (p) => {
  const r = await page.request.get(base + '/admin-api' + p);
  expect(r.ok(), `GET ${p}: ${r.status()}`);
  return r.json();
};

// expectedErrors takes the console errors logged since before off errors
// (the list the console step checks), failing unless each is a refused
// request of that status, as the step meant it.
// wrongPassword signs in as the admin with a wrong password, from a
// browser of its own (the page's session is left as it is).
async function wrongPassword(base, password) {
  const other = await browser.newContext();
  try {
    const r = await other.request.post(base + '/admin-api/auth/login', { data: { email: admin.email, password }, headers: { Origin: base } });
    expect(r.status() === 401, 'a wrong password answered ' + r.status());
  } finally {
    await other.close();
  }
}

function expectedErrors(errors, before, status) {
  const extra = errors.splice(before);
  expect(extra.every((e) => e.includes('status of ' + status)), 'console errors: ' + extra.join(' | '));
  return extra;
}

// actionKey is an audit action as the code names it (user.ban,
// role.assign_mod), which the UI says in words instead.
const actionKey = /\b(user|room|role|auth)\.[a-z_]+/;
// uuidRe is a UUID as a whole cell: an id where a label should lead.
const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// leadingCells are each row's first cell that says something (past a
// selection checkbox): what an operator reads first.
const leadingCells = (table) => table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()).find((t) => t !== '') ?? ''));

// onConsoleErrors collects a page's console errors and uncaught exceptions.
// A browser's own request for /favicon.ico on a page without an icon link
// (the game's JSON pages) is not the panel's error; it may arrive after the
// step that caused it, so it is left out here rather than in that step.
function collectErrors(p, into) {
  p.on('console', (m) => m.type() === 'error' && !(m.location()?.url || '').endsWith('/favicon.ico') && into.push(`${m.text()}${m.location()?.url ? ' ' + m.location().url : ''} (during "${currentStep}")`));
  p.on('pageerror', (e) => into.push(`${e} (during "${currentStep}")`));
}

// totpCode is RFC 6238 (SHA-1, 6 digits, 30 s), as an authenticator app
// computes it, for a base32 secret at time ms.
function totpCode(secret, ms) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const mac = crypto.createHmac('sha1', key).update(counter).digest();
  const off = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(off) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function signIn(email, password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  startServer(port);
  const botBuilt = run('go', ['build', '-o', botBin, './examples/gameserver/bot']);
  botBuilt.catch(() => {}); // awaited by its step
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
  collectErrors(page, consoleErrors);

  await step('first visit: no form without the setup link the server logged, from any address', async () => {
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Create the first admin' }).waitFor();
    await page.getByText('open the one-time setup link').waitFor();
    expect((await page.getByRole('button', { name: 'Create admin' }).count()) === 0, 'a form that cannot work is offered without the token');
    expect((await page.getByText(/forgot/i).count()) === 0, 'a "forgot password" link is shown');
    // The same through a proxy, on a phone.
    const proxied = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { 'X-Forwarded-For': '203.0.113.9' } });
    const p = await proxied.newPage();
    p.setDefaultTimeout(10_000);
    collectErrors(p, consoleErrors);
    await p.goto(base + '/admin/');
    await p.getByText('open the one-time setup link').waitFor();
    expect((await p.getByRole('button', { name: 'Create admin' }).count()) === 0, 'a form that cannot work is offered through a proxy');
    await p.screenshot({ path: path.join(shots, '00-setup-link-needed.png'), fullPage: true });
    await proxied.close();
  });

  await step('the logged setup link opens "Create the first admin"', async () => {
    const m = serverLog.match(/link="?(\/admin\/setup\?token=[A-Za-z0-9%]+)/);
    expect(m, 'the server logged no setup link:\n' + serverLog);
    await page.goto(base + m[1]);
    await page.getByRole('button', { name: 'Create admin' }).waitFor();
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
    // Health in words, not keys.
    const health = page.getByRole('article', { name: 'Health' });
    await health.getByText(/Database: reachable · [\d.]+ ms/).waitFor();
    expect((await health.getByText(/latencyMs|^ok$/).count()) === 0, 'the health widget shows raw keys');
    await shot('02-dashboard');
  });

  await step('dashboard: recent users read like the Users list; totals link to their lists', async () => {
    const recent = page.getByRole('article', { name: 'Recent users' });
    const heads = await recent.locator('thead th').allInnerTexts();
    // As the Users list: the email first (the row's link), the id last.
    expect(heads[0] === 'Email' && heads.at(-1) === 'ID' && !heads.includes('email'), 'recent users columns: ' + heads.join(', '));
    await recent.locator('tbody tr').first().locator('a.row-link').waitFor();
    const leading = await leadingCells(recent);
    expect(leading.length > 0 && leading.every((t) => !uuidRe.test(t.trim())), 'recent users lead with ids: ' + leading.join(', '));
    await page.getByRole('article', { name: 'Totals' }).locator('.kpi', { hasText: 'Guilds' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    await page.goto(base + '/admin/');
    await page.getByRole('article', { name: 'Totals' }).waitFor();
  });

  await step('open Guilds from the sidebar', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    await page.getByRole('cell', { name: 'Iron Wolves' }).waitFor();
    expect((await page.locator('tbody tr').count()) === 10, 'expected the 10 seeded guilds');
    await shot('03-guilds');
  });

  await step('sort guilds by clicking a header', async () => {
    // Columns: selection checkbox, ID, Name, …
    const firstName = () => page.locator('tbody tr').first().locator('td').nth(2).innerText();
    const before = await firstName();
    await page.getByRole('button', { name: 'Name' }).click(); // default sort is name asc: now desc
    await page.waitForURL(/_sort=name&_order=desc/);
    await page.waitForFunction((b) => document.querySelector('tbody tr td:nth-child(3)')?.textContent !== b, before);
    const after = await firstName();
    expect(after.localeCompare(before) > 0, `descending order should start after "${before}", got "${after}"`);
    expect((await page.locator('th[aria-sort="descending"]').innerText()).includes('Name'), 'Name header not marked descending');
  });

  await step('a JSON column header does not sort', async () => {
    await page.goto(base + '/admin/analyticsEvents');
    await page.locator('th', { hasText: 'Payload' }).waitFor();
    expect((await page.getByRole('button', { name: 'Payload' }).count()) === 0, 'the Payload (json) header should not be a sort button');
    expect((await page.getByRole('button', { name: 'Name' }).count()) === 1, 'the Name header should be a sort button');
    await page.goto(base + '/admin/guilds');
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
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
    await page.locator('tbody tr').first().locator('a.row-link').click();
    await page.getByRole('heading', { name: 'Guilds / Iron Wolves' }).waitFor();
    expect((await page.title()) === 'Iron Wolves · Guilds · Game admin', 'page title: ' + (await page.title()));
    await page.locator('dd', { hasText: 'Iron Wolves' }).waitFor();
    await page.locator('dd a', { hasText: /Player \d+/ }).waitFor(); // owner_id shows the owner's label
    // A binary column: its size, and the bytes as stored for download.
    await page.locator('dd', { hasText: '67 bytes' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download Emblem/ }).click()]);
    expect(/^guilds-\d+-emblem\.bin$/.test(download.suggestedFilename()), 'download name: ' + download.suggestedFilename());
    const png = fs.readFileSync(await download.path());
    expect(png.length === 67 && png.subarray(1, 4).toString() === 'PNG', `downloaded ${png.length} bytes`);
    await shot('04-guild');
  });

  await step("edit the guild's name", async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit Guild / Iron Wolves' }).waitFor(); // singular
    const name = page.getByLabel(/^Name/);
    await name.waitFor();
    // Another guild's name: the server's refusal, in words, once, at the field.
    const errorsBefore = consoleErrors.length;
    await name.fill('Sky Pirates');
    await page.getByRole('button', { name: 'Save' }).click();
    const taken = page.getByText('Name: already taken: another row has this value');
    await taken.waitFor();
    expect((await taken.count()) === 1, 'the field error shows ' + (await taken.count()) + ' times');
    expect((await page.locator('.record-form [role="alert"]').count()) === 0, 'a form banner repeats the field error');
    expect((await page.locator('[data-sonner-toast]', { hasText: 'already taken' }).count()) === 0, 'a toast repeats the field error');
    expect((await name.getAttribute('aria-invalid')) === 'true', 'the name is not marked invalid');
    await shot('05a-guild-name-taken');
    // The browser logs the refused PATCH (409): expected, and taken off
    // the list the console step checks.
    const refused = consoleErrors.splice(errorsBefore);
    expect(refused.every((e) => /status of 409/.test(e)), 'console errors of the refused save: ' + refused.join(' | '));
    await name.fill('Iron Wolves Reborn');
    // A decimal is checked as it is typed, and kept to the digit.
    const treasury = page.getByLabel(/^Treasury/);
    await treasury.fill('12.3x');
    await page.getByText('Enter a decimal number, such as 12.30.').waitFor();
    expect((await treasury.getAttribute('aria-invalid')) === 'true', 'the typo is not marked invalid');
    await treasury.fill('1234.50');
    expect((await page.getByText('Enter a decimal number, such as 12.30.').count()) === 0, 'the error stays after the fix');
    await shot('05-guild-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Guilds / Iron Wolves Reborn' }).waitFor();
    await page.locator('dd', { hasText: 'Iron Wolves Reborn' }).waitFor();
    // numeric(12,2) shows its scale, though SQLite stores 1234.5.
    await page.locator('dd', { hasText: /^1234\.50$/ }).waitFor();
  });

  await step("the guild's History shows the edit; Revert says what changes, and is itself reverted", async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    const edit = page.locator('.history-entry').filter({ hasText: 'Updated' }).first();
    await edit.getByRole('table', { name: 'Changes' }).getByRole('cell', { name: 'Iron Wolves Reborn' }).waitFor();
    // Fields by their labels, decimals with their scale.
    await edit.getByRole('table', { name: 'Changes' }).getByRole('cell', { name: 'Treasury', exact: true }).waitFor();
    await edit.getByRole('table', { name: 'Changes' }).getByRole('cell', { name: '1234.50', exact: true }).waitFor();
    expect((await edit.getByRole('cell', { name: 'treasury', exact: true }).count()) === 0, 'the history names the column key');
    await edit.getByRole('button', { name: 'Revert…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
    await dialog.getByRole('table', { name: 'What the revert changes' }).getByRole('cell', { name: 'Iron Wolves', exact: true }).waitFor();
    await shot('05b-revert-confirm');
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await page.getByRole('heading', { name: 'Guilds / Iron Wolves', exact: true }).waitFor();
    // The revert is in the history too; reverting it puts the edit back.
    const reverted = page.locator('.history-entry').filter({ hasText: 'reverted' }).first();
    await reverted.getByRole('button', { name: 'Revert…' }).click();
    await page.getByRole('dialog', { name: 'Revert this change?' }).getByRole('button', { name: 'Revert' }).click();
    await page.getByRole('heading', { name: 'Guilds / Iron Wolves Reborn' }).waitFor();
    await page.locator('dd', { hasText: /^1234\.50$/ }).waitFor();
    await shot('05c-history');
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('heading', { name: 'Guilds', exact: true }).waitFor();
  });

  await step('a list says how to call it from a script, and links the OpenAPI document', async () => {
    await page.getByRole('button', { name: 'API' }).click();
    const dialog = page.getByRole('dialog', { name: 'Guilds from a script' });
    await dialog.getByText(/curl -b "game_admin_session=\$SESSION" '.*\/admin-api\/guilds\?_start=0&_end=25'/).waitFor();
    const href = await dialog.getByRole('link', { name: 'the OpenAPI document' }).getAttribute('href');
    const doc = await (await page.request.get(base + href)).json();
    expect(doc.openapi === '3.1.0' && doc.paths['/guilds'] && doc.components.schemas.Guilds, 'the OpenAPI document: ' + JSON.stringify(doc).slice(0, 200));
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  await step('run the recount bulk action', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('cell', { name: 'Iron Wolves Reborn' }).waitFor();
    await page.getByRole('button', { name: 'Recount' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run "Recount"?' });
    await dialog.waitFor();
    await shot('06-recount-confirm');
    await dialog.getByRole('button', { name: 'Recount' }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: 'Recount: done' });
    await toast.waitFor();
    // The handler's answer ({Guilds, Owners}) is shown, as a key/value list.
    await toast.locator('dl.kv dt', { hasText: 'Guilds' }).waitFor();
    expect((await toast.locator('dl.kv dd').first().innerText()) === '10', 'recount result: ' + (await toast.innerText()));
    await toast.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished))); // slid in, for the picture
    await shot('07-recount-toast');
    await toast.getByRole('button', { name: /close/i }).click();
    // Closing the toast hands focus back once it has slid out: the next
    // step's focus must come after that.
    await toast.waitFor({ state: 'detached' });
  });

  await step('a row menu works from the keyboard', async () => {
    const button = page.getByRole('button', { name: /^Actions for row / }).first();
    await button.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('role'));
    expect(focused === 'menuitem', 'arrow keys do not reach the menu items: ' + focused);
    const items = (await menu.getByRole('menuitem').allInnerTexts()).map((t) => t.trim());
    expect(items.includes('Disband'), 'an admin should see Disband: ' + items.join(', '));
    await shot('07b-row-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await waitFocus(button, 'focus did not return to the menu button');
  });

  await step('a dialog keeps focus inside and gives it back', async () => {
    const opener = page.getByRole('button', { name: 'Recount' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Run "Recount"?' });
    await dialog.waitFor();
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement)), `Tab ${i + 1} left the dialog`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitFocus(opener, 'focus did not return to Recount');
  });

  await step('a skip link leads past the sidebar', async () => {
    await page.goto(base + '/admin/guilds');
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => document.activeElement?.textContent);
    expect(first === 'Skip to content', 'the first Tab lands on ' + first);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'content');
  });

  await step('names: "New Role", distinct icons', async () => {
    await page.goto(base + '/admin/roles/new');
    await page.getByRole('heading', { name: 'New Role', exact: true }).waitFor();
    const nav = page.getByRole('navigation');
    const icon = (name) => nav.getByRole('link', { name, exact: true }).locator('svg').getAttribute('class');
    expect((await icon('Roles')) !== (await icon('Audit log')), 'Roles and Audit log share an icon');
    expect((await icon('Leaderboards')) !== (await icon('Leaderboard Entries')), 'Leaderboards and Leaderboard Entries share an icon');
  });

  await step('create a config with a JSON value', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Configs' }).click();
    await page.getByRole('heading', { name: 'Configs' }).waitFor();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByLabel(/^Key/).fill('e2e.motd');
    await page.getByLabel(/^Value/).fill('{"text": not json');
    await page.getByRole('button', { name: 'Create' }).click();
    // Said at the field (the editor's own note says it too, as typed).
    await page.locator('#field-value-error', { hasText: 'Not valid JSON.' }).waitFor();
    await page.getByLabel(/^Value/).fill('{"text": "Welcome back"}');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /Configs \/ e2e\.motd/ }).waitFor();
    await page.locator('dd', { hasText: 'Welcome back' }).waitFor();
  });

  await step('create a user with an initial password, and one with an invite', async () => {
    await page.goto(base + '/admin/users/new');
    await page.getByRole('heading', { name: 'New User' }).waitFor();
    await page.getByLabel(/^Email/).fill('New.Player@Example.com');
    await page.getByLabel(/^Initial password/).fill('short');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('At least 8 characters.').waitFor();
    await page.getByLabel(/^Initial password/).fill('new player passphrase');
    await shot('07-new-user');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('dd', { hasText: 'New.Player@Example.com' }).waitFor();
    // The password works, typed in any case of the email; it was never shown.
    const ctx = await browser.newContext();
    try {
      const r = await ctx.request.post(base + '/admin-api/auth/login', { data: { email: 'new.player@example.com', password: 'new player passphrase' } });
      expect(r.status() === 200, 'sign-in with the initial password: ' + r.status());
    } finally {
      await ctx.close();
    }
    expect((await page.content()).indexOf('new player passphrase') < 0, 'the password is on the page');

    const before = serverLog.length;
    await page.goto(base + '/admin/users/new');
    await page.getByLabel(/^Email/).fill('invited.player@example.com');
    await page.getByRole('switch', { name: /Send an invite instead/ }).click();
    expect((await page.getByLabel(/^Initial password/).count()) === 0, 'the password field stays with an invite');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('dd', { hasText: 'invited.player@example.com' }).waitFor();
    const deadline = Date.now() + 10_000;
    while (!/email=invited\.player@example\.com invite=true/.test(serverLog.slice(before)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(/email=invited\.player@example\.com invite=true/.test(serverLog.slice(before)), 'no invite sent for the new user');
  });

  let playerEmail = 'player07@example.com';
  await step('open Users and a player', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.locator('tbody tr a.row-link').first().waitFor();
    const leading = await leadingCells(page.locator('main'));
    expect(leading.every((t) => !uuidRe.test(t.trim())), 'the users list leads with ids: ' + leading.slice(0, 3).join(', '));
    await page.getByRole('searchbox', { name: 'Search' }).fill(playerEmail);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.locator('tbody tr').first().locator('a.row-link').click();
    await page.locator('dd', { hasText: playerEmail }).waitFor();
    await page.getByRole('tab', { name: /Analytics Events/ }).waitFor();
    await page.getByText('Not banned.').waitFor();
    const labels = await page.locator('dl.fields dt').allInnerTexts();
    expect(!labels.some((t) => /token/i.test(t)) && labels.at(-1) === 'ID', 'the user page fields: ' + labels.join(', '));
    // The related tabs fit (they wrap), at 1440 and 390 px.
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // Measured once the page has laid out at the new width (the switch
      // to the phone layout re-renders): a cut that lasts fails.
      const cut = () => page.evaluate(() => [...document.querySelectorAll('.tab-list .tab')].filter((t) => {
        const list = t.parentElement.getBoundingClientRect();
        return t.getBoundingClientRect().right > list.right + 1 || t.scrollWidth > t.clientWidth + 1;
      }).map((t) => t.textContent));
      let out = await cut();
      for (let i = 0; i < 20 && out.length > 0; i++) {
        await page.waitForTimeout(100);
        out = await cut();
      }
      expect(out.length === 0, `tabs cut off at ${width} px: ${out.join(', ')}`);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await shot('08-user');
  });

  await step('relation tabs label their foreign keys', async () => {
    const panel = page.getByRole('tabpanel');
    // Cloud Saves: user_id points back at this user, linked and labelled.
    await page.getByRole('tab', { name: /Cloud Saves/ }).click();
    await panel.getByRole('link', { name: 'Player 07', exact: true }).first().waitFor();
    // User Notes: the author is another user, labelled, not a UUID.
    await page.getByRole('tab', { name: /User Notes/ }).click();
    // The notes' own panel (the Cloud Saves one it replaces links Player 07 too).
    await panel.getByRole('link', { name: /^Add user note for/ }).waitFor();
    const author = panel.locator('tbody tr').first().locator('a', { hasText: /^Player \d+$/ });
    await author.first().waitFor();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;
    const texts = await panel.locator('tbody a').allInnerTexts();
    const fkTexts = texts.filter((t) => !/^\d+$/.test(t)); // the row links are the notes' ids
    expect(fkTexts.length >= 2 && fkTexts.every((t) => !uuid.test(t)), 'relation links show raw ids: ' + texts.join(', '));
    const href = await author.first().getAttribute('href');
    expect(/\/admin\/users\/[0-9a-f-]{36}$/.test(href ?? ''), 'the author link goes to ' + href);
    await shot('08b-user-notes-tab');
  });

  await step('related tabs lead somewhere: the tab is in the URL, a capped one links to the full list, "Add" fills in the parent', async () => {
    const userPage = page.url().split('?')[0];
    // The User Notes tab is open (the step before): the URL says so, and
    // a reload keeps it.
    await page.waitForURL(/[?&]tab=/);
    await page.reload();
    await page.getByRole('tab', { name: /User Notes/, selected: true }).waitFor();
    // Add a note for this player: the form has them filled in.
    await page.getByRole('link', { name: /^Add user note for Player 07$/ }).click();
    await page.getByRole('heading', { name: 'New User Note' }).waitFor();
    await page.getByLabel(/^User/).filter({ hasText: 'Player 07' }).waitFor();
    await page.getByLabel(/^Body/).fill('e2e: added from the player page');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('dd', { hasText: 'e2e: added from the player page' }).waitFor();
    await page.locator('dd a', { hasText: 'Player 07' }).first().waitFor();
    // Analytics Events holds more than a tab shows: it links to the list.
    await page.goto(userPage + '?tab=analyticsEvents');
    await page.getByRole('tab', { name: /Analytics Events/, selected: true }).waitFor();
    const all = page.getByRole('tabpanel').getByRole('link', { name: /^See all .*in Analytics Events$/ });
    await all.waitFor();
    await shot('08c-capped-tab');
    await all.click();
    await page.getByRole('heading', { name: 'Analytics Events' }).waitFor();
    await page.waitForURL(/user_id_eq=/);
    await page.locator('.chip', { hasText: 'User ID' }).waitFor(); // the filter shows, and can be removed
    await page.locator('.chip', { hasText: '“Player 07”' }).waitFor(); // by the player's name, not their id
    // Count once the rows are there: the heading comes before them.
    await page.locator('tbody tr', { hasText: 'Player 07' }).first().waitFor();
    const rows = await countSettles(page.locator('tbody tr'));
    const others = await page.locator('tbody tr', { hasNotText: 'Player 07' }).count();
    expect(rows > 0 && others === 0, `the full list shows ${others} rows of other players`);
    await page.goto(userPage);
    await page.locator('dd', { hasText: playerEmail }).waitFor();
  });

  await step('ban the player from its page: how long is a choice, never implied', async () => {
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban Player 07' });
    await dialog.getByLabel(/Reason/).fill('e2e: cheating');
    for (const d of ['1 hour', '1 day', '7 days', '30 days', 'Permanent', 'Until a date…']) await dialog.getByRole('radio', { name: d }).waitFor();
    // No length chosen: refused in the form, nothing sent.
    await dialog.getByRole('button', { name: 'Ban Player 07' }).click();
    await dialog.getByRole('alert').getByText('Choose how long the ban lasts.').waitFor();
    // A custom end states its time zone, and an empty one is refused.
    await dialog.getByRole('radio', { name: 'Until a date…' }).check();
    await dialog.getByText(/your time: /).waitFor();
    await dialog.getByRole('button', { name: 'Ban Player 07' }).click();
    await dialog.getByRole('alert').getByText('Pick the date and time the ban ends.').waitFor();
    await dialog.getByRole('radio', { name: 'Permanent' }).check();
    await shot('09-ban-dialog');
    await dialog.getByRole('button', { name: 'Ban Player 07' }).click();
    await page.getByText(/^Player 07 banned; \d+ live sessions? closed$/).waitFor();
    const words = page.getByTestId('ban-state');
    await words.filter({ hasText: 'Banned by ' + admin.email + ' for good' }).waitFor();
    expect((await words.innerText()).endsWith('— e2e: cheating'), 'ban state: ' + (await words.innerText()));
    await page.getByRole('button', { name: 'Unban' }).waitFor();
    await shot('10-banned');
  });

  await step('Revoke sessions and Unban ask first', async () => {
    const revoke = page.getByRole('button', { name: 'Revoke sessions' });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the sessions of Player 07?' });
    await dialog.waitFor();
    await waitFocus(dialog.getByRole('button', { name: 'Cancel' }), 'the Revoke dialog does not open on Cancel');
    await shot('10b-revoke-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitFocus(revoke, 'focus did not return to Revoke sessions');
    await page.getByRole('button', { name: 'Unban' }).click();
    const unban = page.getByRole('dialog', { name: 'Unban Player 07?' });
    await waitFocus(unban.getByRole('button', { name: 'Cancel' }), 'the Unban dialog does not open on Cancel');
    // Enter at once (a double Enter on the button) cancels.
    await page.keyboard.press('Enter');
    await unban.waitFor({ state: 'detached' });
    await page.getByTestId('ban-state').getByText('Banned').waitFor(); // still banned
  });

  await step('Revoke sessions says in words how many live sessions closed', async () => {
    await page.getByRole('button', { name: 'Revoke sessions' }).click();
    await page.getByRole('dialog', { name: 'Revoke the sessions of Player 07?' }).getByRole('button', { name: 'Revoke sessions' }).click();
    await page.getByText(/^Sessions of Player 07 revoked; 0 live sessions closed$/).waitFor();
  });

  await step('relation tabs move with the arrow keys', async () => {
    const tabs = page.getByRole('tab');
    await tabs.first().click();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelectorAll('[role=tab]')[1]?.getAttribute('aria-selected') === 'true');
    await waitFocus(tabs.nth(1), 'ArrowRight did not move focus to the next tab');
  });

  await step('the "Banned" filter lists banned users only', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'Banned' }).click();
    await page.waitForURL(/_banned=true/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.getByRole('cell', { name: playerEmail }).waitFor();
    // The ban reads as words, not JSON, and its reason shows on focus.
    const badge = page.locator('tbody td .badge-banned');
    expect((await badge.innerText()).startsWith('Banned for good · e2e: cheating'), 'ban badge: ' + (await badge.innerText()));
    expect((await page.locator('tbody td').filter({ hasText: 'bannedAt' }).count()) === 0, 'a list shows the ban as JSON');
    await shot('10c-banned-filter');
    await page.getByRole('button', { name: 'Banned', pressed: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length > 1);
  });

  await step("a game's until-column (_ban) and a guest without email read as the built-in ban and email (answers rewritten: the demo's table has neither)", async () => {
    // The server's answers as with UserColumns.BanUntil: no ban column in
    // the catalog, banColumn "_ban", rows carrying _ban {reason, until?}
    // (who and when are the audit log's); and Player 08 a guest (email NULL).
    const guestName = 'Player 08';
    const toUntil = (r) => {
      if (!r || typeof r !== 'object' || !('ban' in r)) return r;
      const b = r.ban;
      delete r.ban;
      r._ban = b ? { ...(b.reason ? { reason: b.reason } : {}), ...(b.until ? { until: b.until } : {}) } : null;
      if (r.display_name === guestName) r.email = null;
      return r;
    };
    const catalog = async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      for (const e of Array.isArray(body) ? body : body.catalog ?? []) {
        if (e.name !== 'users') continue;
        e.columns = e.columns.filter((c) => c.name !== 'ban');
        e.listColumns = e.listColumns?.filter((c) => c !== 'ban');
        e.showFields = e.showFields?.filter((c) => c !== 'ban');
        e.banColumn = '_ban';
      }
      await route.fulfill({ response: res, json: body });
    };
    const usersRows = async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      // The page asks only for the columns it shows (_fields), and this
      // catalog hides the JSON ban column the rewrite reads: the server
      // is asked for every column, as a BanUntil game's adds _ban anyway.
      const url = new URL(route.request().url());
      url.searchParams.delete('_fields');
      const res = await route.fetch({ url: url.toString() });
      const body = await res.json();
      await route.fulfill({ response: res, json: Array.isArray(body) ? body.map(toUntil) : toUntil(body) });
    };
    const catalogURL = /\/admin-api\/?(\?.*)?$|\/admin-api\/auth\/status/;
    const usersURL = /\/admin-api\/users(\/[^/?_][^/?]*)?(\?.*)?$/;
    await page.route(catalogURL, catalog);
    await page.route(usersURL, usersRows);
    try {
      await page.goto(base + '/admin/users?_banned=true');
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      await page.getByRole('cell', { name: playerEmail }).waitFor();
      expect((await page.locator('thead th').allInnerTexts()).includes('Ban'), 'no Ban column from _ban');
      const badge = page.locator('tbody td .badge-banned');
      expect((await badge.innerText()).startsWith('Banned for good · e2e: cheating'), '_ban badge: ' + (await badge.innerText()));
      await page.getByRole('button', { name: 'Banned', pressed: true }).waitFor();
      await page.locator('tbody tr').first().locator('a.row-link').click();
      await page.getByTestId('ban-state').filter({ hasText: /^Banned for good — e2e: cheating$/ }).waitFor();
      await page.locator('.field', { hasText: 'Ban' }).last().locator('dd', { hasText: 'Banned for good' }).waitFor();
      await page.getByRole('button', { name: 'Unban' }).waitFor();
      await shot('10c2-until-column-ban');

      // The guest: "no email", no invite, Export and Erase… confirmed by id.
      const guestId = await page.evaluate(async () => {
        const r = await fetch('/admin-api/users?display_name_eq=Player%2008');
        return (await r.json())[0]?.id;
      });
      expect(guestId, 'no Player 08');
      await page.goto(base + '/admin/users/' + guestId);
      await page.locator('.field', { hasText: 'Email' }).locator('dd', { hasText: /^no email$/ }).waitFor();
      await page.getByRole('heading', { name: 'Data requests' }).waitFor();
      await page.getByRole('link', { name: 'Export data' }).waitFor();
      expect((await page.getByRole('button', { name: /Send invite/ }).count()) === 0, 'a guest is offered an invite');
      await page.getByRole('button', { name: 'Erase…' }).click();
      const dialog = page.getByRole('dialog', { name: `Erase ${guestName}'s personal data?` });
      await dialog.getByText('This player has no email: type their id').waitFor();
      await dialog.getByRole('textbox').fill('player08@example.com');
      expect(await dialog.getByRole('button', { name: 'Erase', exact: true }).isDisabled(), 'Erase enabled by an email for a guest');
      await dialog.getByRole('textbox').fill(guestId);
      expect(await dialog.getByRole('button', { name: 'Erase', exact: true }).isEnabled(), 'Erase disabled with the guest id typed');
      await shot('10c3-guest-erase');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.unroute(catalogURL, catalog);
      await page.unroute(usersURL, usersRows);
    }
    await page.goto(base + '/admin/users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
  });

  await step('dashboard: today in figures, each linked; recent moderation in sentences', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Dashboard' }).click();
    const today = page.getByRole('article', { name: 'Today' });
    const banned = today.locator('.kpi', { hasText: 'Banned now' });
    await banned.waitFor();
    for (const label of ['Online now', 'Sign-ups today', 'Moderation (24 h)']) await today.locator('.kpi', { hasText: label }).waitFor();
    const n = Number((await banned.locator('dd').innerText()).replace(/\D/g, ''));
    const listed = await (await page.request.get(base + '/admin-api/users?_banned=true')).json().then((rows) => rows.length);
    expect(n >= 1 && n === listed, `Banned now says ${n}; the banned list has ${listed}`);
    // Who banned whom, why and when, as a sentence linked to the player.
    const feed = page.getByRole('article', { name: 'Recent moderation' }).getByRole('listitem').filter({ hasText: 'banned Player 07' }).first();
    const line = await feed.innerText();
    expect(/e2e-admin@example\.com banned Player 07 for good · “e2e: cheating”/.test(line), 'recent moderation reads: ' + line);
    await shot('10d-dashboard-today');
    // The audit chart's lines (legend and table) are actions in words, and its legend says a time.
    const chart = page.getByRole('article', { name: 'Audit log by action' });
    await chart.locator('table thead th').nth(1).waitFor({ state: 'attached' });
    const chartText = await chart.evaluate((el) => el.textContent ?? '');
    expect(!actionKey.test(chartText), 'the audit chart names an action key: ' + chartText.match(actionKey)?.[0]);
    expect(/Made mod|First admin created|Banned|Signed in|Updated|Created/.test(chartText), 'the audit chart says no action in words: ' + chartText.slice(0, 300));
    expect(!/--/.test(chartText), 'the audit chart legend says "--": ' + chartText.slice(0, 300));
    await feed.getByRole('link', { name: 'Player 07' }).click();
    await page.locator('dd', { hasText: playerEmail }).waitFor();
    // The edit form shows the ban in words too, read-only, not as JSON.
    await page.getByRole('link', { name: 'Edit' }).click();
    const banField = page.getByRole('group', { name: /Ban/ });
    await banField.getByText(/Banned for good/).waitFor();
    expect((await page.getByText('bannedAt').count()) === 0, 'the edit form shows the ban as JSON');
    await page.goBack();
    await page.goBack();
    await banned.getByRole('link').click();
    await page.waitForURL(/_banned=true/);
    await page.getByRole('button', { name: 'Banned', pressed: true }).waitFor();
    await page.waitForFunction((k) => document.querySelectorAll('tbody tr').length === k, n);
  });

  await step('dashboard charts: players online, sign-ups and the audit log, for 24 hours, 7 or 30 days, with a table', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Dashboard' }).click();
    for (const title of ['Players online', 'Sign-ups', 'Audit log by action']) {
      await page.getByRole('article', { name: title }).locator('.series-chart canvas').waitFor();
    }
    const signUps = page.getByRole('article', { name: 'Sign-ups' });
    await signUps.getByText(/^As a table/).click();
    const rows = signUps.getByRole('table', { name: 'Sign-ups' }).locator('tbody tr');
    const signUpRows = await countSettles(rows);
    expect(signUpRows === 24, 'sign-ups over 24 hours: ' + signUpRows + ' rows');
    await shot('10e-dashboard-charts');
    await page.getByRole('group', { name: 'Charts show' }).getByRole('button', { name: '30 days' }).click();
    await page.waitForURL(/range=30d/);
    await page.waitForFunction(() => document.querySelectorAll('article[aria-label="Sign-ups"] tbody tr').length === 30);
    // Every seeded player signed up within the last days: the month's table counts them all.
    const counted = await signUps.getByRole('table', { name: 'Sign-ups' }).locator('tbody tr td:nth-child(2)').allInnerTexts();
    const total = counted.reduce((n, v) => n + Number(v.replace(/\D/g, '')), 0);
    const users = Number((await page.request.get(base + '/admin-api/users?_end=1')).headers()['x-total-count']);
    expect(total === users, `30 days of sign-ups add up to ${total}; there are ${users} users`);
    await page.getByRole('group', { name: 'Charts show' }).getByRole('button', { name: '24 hours' }).click();
  });

  await step('moderation where the operator is: a selection of users is banned at once, a row unbanned from its menu', async () => {
    await page.goto(base + '/admin/users?_q=player4');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 10);
    for (const n of ['40', '41']) await page.locator('tbody tr', { hasText: `player${n}@example.com` }).getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByText('2 selected').waitFor();
    await bar.getByRole('button', { name: 'Revoke sessions' }).waitFor();
    await bar.getByRole('button', { name: 'Ban…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban 2 users' });
    await dialog.getByLabel(/^Reason/).fill('e2e: bot ring');
    await dialog.getByRole('radio', { name: '1 day' }).check();
    await dialog.getByRole('button', { name: 'Ban 2 users' }).click();
    await page.getByText(/^2 players banned/).waitFor();
    for (const n of ['40', '41']) await page.locator('tbody tr', { hasText: `player${n}@example.com` }).locator('.badge-banned', { hasText: /^Banned until .* · e2e: bot ring$/ }).waitFor();
    await shot('10d-bulk-ban');
    for (const n of ['40', '41']) {
      const row = page.locator('tbody tr', { hasText: `player${n}@example.com` });
      await row.getByRole('button', { name: /^Actions for row / }).click();
      await page.getByRole('menuitem', { name: 'Unban' }).click();
      await page.getByRole('dialog', { name: `Unban Player ${n}?` }).getByRole('button', { name: 'Unban' }).click();
      await page.locator('[data-sonner-toast]', { hasText: `Player ${n} unbanned` }).first().waitFor(); // named, not "1 unbanned"
      await row.locator('.badge-banned').waitFor({ state: 'detached' });
    }
    // One user's sessions, named: not "1 sessions revoked".
    await page.locator('tbody tr', { hasText: 'player40@example.com' }).getByRole('button', { name: /^Actions for row / }).click();
    await page.getByRole('menuitem', { name: 'Revoke sessions' }).click();
    await page.getByRole('dialog', { name: 'Revoke the sessions of Player 40?' }).getByRole('button', { name: 'Revoke sessions' }).click();
    await page.getByText(/^Sessions of Player 40 revoked$/).waitFor();
  });

  await step('dashboard: recent moderation shows 8 and says how many there are, See all lists them in the audit log', async () => {
    // Two more revokes, so the week has more than the widget shows.
    const [p41] = await (await page.request.get(base + '/admin-api/users?_q=player41@example.com')).json();
    for (let i = 0; i < 2; i++) {
      const r = await page.request.post(`${base}/admin-api/users/${p41.id}/revoke-sessions`, { headers: { Origin: base } });
      expect(r.ok(), 'revoke answered ' + r.status());
    }
    await page.goto(base + '/admin/');
    const widget = page.getByRole('article', { name: 'Recent moderation' });
    const all = widget.getByRole('link', { name: /^See all \d+$/ });
    await all.waitFor();
    const n = Number((await all.innerText()).replace(/\D/g, ''));
    expect(n > 8 && (await widget.locator('li').count()) === 9, `See all ${n}, ${await widget.locator('li').count()} lines; want 8 and the link`);
    await shot('10f-recent-moderation-see-all');
    await all.click();
    await page.waitForURL(/\/admin\/adminAudit\?.*action_in=/);
    const q = new URL(page.url()).search;
    const total = Number((await page.request.get(base + '/admin-api/adminAudit' + q + '&_end=1')).headers()['x-total-count']);
    expect(total === n, `the audit log lists ${total}; See all said ${n}`);
  });

  const openUser = async (email) => {
    await page.goto(base + '/admin/users?' + new URLSearchParams({ _q: email }));
    // A table's row or, on a phone, a card: either links to the user.
    await page.waitForFunction(() => document.querySelectorAll('[data-row]').length === 1);
    await page.locator('[data-row]').first().locator('a.row-link').click();
    await page.locator('dd', { hasText: email }).waitFor();
  };
  let player08 = '';
  await step('an admin makes a player a mod with scopes', async () => {
    await openUser('player08@example.com');
    player08 = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    expect((await page.title()) === 'Player 08 · Users · Game admin', 'page title: ' + (await page.title()));
    await page.getByLabel('Role', { exact: true }).selectOption('mod');
    await page.getByRole('checkbox', { name: 'Guilds' }).check();
    await page.getByRole('checkbox', { name: 'User Notes' }).check();
    await shot('10d-role-scopes');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByText('Player 08 is now a mod').waitFor();
    const roles = await page.evaluate((id) => fetch('/admin-api/roles?user_id=' + encodeURIComponent(id)).then((r) => r.json()), player08);
    expect(roles.length === 1 && roles[0].role === 'mod' && JSON.stringify([...roles[0].scopes].sort()) === '["guilds","userNotes"]', 'roles row: ' + JSON.stringify(roles));
  });

  let inviteURL = '';
  await step('an admin sends an invite, after a confirmation', async () => {
    const before = serverLog.length;
    await page.getByRole('button', { name: 'Send invite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send an invite to Player 08?' });
    await dialog.getByRole('button', { name: 'Send invite' }).click();
    await page.getByText('Invite sent').waitFor();
    const deadline = Date.now() + 10_000;
    let m = null;
    while (!m && Date.now() < deadline) {
      m = /invite=true url=(\S+)/.exec(serverLog.slice(before));
      if (!m) await new Promise((r) => setTimeout(r, 100));
    }
    expect(m, 'no invite link in the server log');
    inviteURL = m[1].replace(/^"|"$/g, '');
    expect(inviteURL.startsWith('/admin/reset?token='), 'invite link: ' + inviteURL);
  });

  await step('the invite link is a reset page that needs no session', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const main = page;
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    collectErrors(page, consoleErrors);
    try {
      await page.goto(base + '/admin/reset');
      await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
      expect((await page.getByText('Not allowed').count()) === 0, '/reset says "not allowed"');
      await page.goto(base + inviteURL);
      await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByText('Too short').waitFor();
      await page.getByLabel('New password', { exact: true }).fill('player eight new passphrase');
      await page.getByText('Strong').waitFor();
      await page.getByLabel('New password again').fill('player eight new passphrasE');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('The two passwords differ.').waitFor();
      await shot('10e-reset-mismatch');
      await page.getByLabel('New password again').fill('player eight new passphrase');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByRole('heading', { name: 'Password set' }).waitFor();
      await shot('10f-reset-done');
      await audit();
      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await signIn('player08@example.com', 'player eight new passphrase');
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).waitFor(); // the mod scopes set above
    } finally {
      await ctx.close();
      page = main;
    }
  });

  await step("a player's data request: Export data downloads it, Erase… says what it does and needs the email typed", async () => {
    const email = 'player33@example.com';
    await page.goto(base + '/admin/users?_q=' + encodeURIComponent(email));
    await page.locator('tbody tr').first().locator('a.row-link').click();
    await page.locator('dd', { hasText: email }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export data' }).click()]);
    const doc = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    expect(doc.user.email === email && !('password_hash' in doc.user) && Array.isArray(doc.resources.cloudSaves) && Array.isArray(doc.audit), 'export: ' + JSON.stringify(doc).slice(0, 300));
    await page.getByRole('button', { name: 'Erase…' }).click();
    const dialog = page.getByRole('dialog', { name: "Erase Player 33's personal data?" });
    await dialog.getByRole('table', { name: 'What the erase does' }).getByRole('cell', { name: 'Cloud Saves' }).waitFor();
    const erase = dialog.getByRole('button', { name: 'Erase', exact: true });
    expect(await erase.isDisabled(), 'Erase is enabled before the email is typed');
    await dialog.getByLabel(/Type .* to confirm/).fill(email.toUpperCase());
    await shot('10g-erase-confirm');
    await erase.click();
    await page.getByText("Player 33's personal data is erased").waitFor();
    await page.locator('dd', { hasText: /^erased-.*@erased\.invalid$/ }).waitFor();
    const left = await (await page.request.get(base + '/admin-api/users?_q=' + encodeURIComponent(email))).json();
    expect(left.length === 0, 'the erased email is still found: ' + JSON.stringify(left));
  });

  await step('an erased player reads "Erased player", offers nothing that needs a person, and its row never widens the list past the screen', async () => {
    const userPath = new URL(page.url()).pathname;
    await page.getByRole('heading', { name: /Erased player/ }).waitFor();
    await page.getByTestId('erased-note').waitFor();
    for (const b of ['Send invite', 'Unban', 'Ban again', 'Revoke sessions', 'Erase…', 'Save role']) {
      expect((await page.getByRole('button', { name: b }).count()) === 0, `an erased player offers ${b}`);
    }
    expect((await page.getByRole('link', { name: 'Edit', exact: true }).count()) === 0, 'an erased player offers Edit');
    expect((await page.getByRole('link', { name: /^Add .* for / }).count()) === 0, 'an erased player offers "Add … for"');
    await page.setViewportSize({ width: 1440, height: 900 });
    await shot('10h-erased-player-1440');
    // The audit log names the erased account in words, never erased-<uuid>.
    const erasedId = decodeURIComponent(userPath.split('/').pop());
    await page.goto(base + '/admin/adminAudit?' + new URLSearchParams({ resource: 'users', target_id: erasedId }));
    await page.locator('tbody tr', { hasText: 'Erased' }).first().waitFor();
    const col = (await page.locator('thead th').allInnerTexts()).findIndex((t) => t.trim() === 'Target') + 1;
    const targets = await page.locator(`tbody tr td:nth-child(${col})`).allInnerTexts();
    expect(targets.length > 0 && targets.every((t) => t.trim() === 'Erased player'), 'the erased player\'s audit targets: ' + targets.join(', '));
    await page.goto(base + userPath);
    await page.getByRole('heading', { name: /Erased player/ }).waitFor();
    // The list: the row reads "Erased player", its menu has View and
    // Delete only, and every row's menu is on screen at 1440 px.
    await page.goto(base + '/admin/users?_q=erased');
    const row = page.locator('tbody tr', { hasText: 'Erased player' }).first();
    await row.waitFor();
    expect((await page.locator('tbody', { hasText: '@erased.invalid' }).count()) === 0, 'the list shows the erased email');
    await row.getByRole('button', { name: /^Actions for row / }).click();
    const items = (await page.getByRole('menu').getByRole('menuitem').allInnerTexts()).map((t) => t.trim());
    await page.keyboard.press('Escape');
    expect(JSON.stringify(items) === '["View","Delete"]', 'an erased row\'s menu: ' + items.join(', '));
    await page.goto(base + '/admin/users');
    await page.locator('tbody tr').nth(5).waitFor();
    // A long value, as a long email: the cell is cut, the ⋯ stays in view.
    await page.evaluate(() => {
      const td = document.querySelector('tbody tr td:nth-child(2)');
      if (td) td.querySelector('a, span')?.replaceChildren('erased-0190a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b-and-then-some@erased.invalid');
    });
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      if (width === 390) {
        // A phone shows cards: the long value is the first card's title,
        // cut inside it.
        await page.locator('.data-card[data-row="5"]').waitFor();
        await page.evaluate(() => document.querySelector('.data-card .card-title a')?.replaceChildren('erased-0190a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b-and-then-some@erased.invalid'));
        const wide = await page.evaluate(() => document.scrollingElement.scrollWidth);
        expect(wide <= 390, `the users list is ${wide}px wide at 390 px with a long value`);
      }
      const menus = await page.getByRole('button', { name: /^Actions for row / }).evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().right));
      expect(menus.length > 0 && menus.every((r) => r <= width), `a row menu is off-screen at ${width} px: ` + menus.join(', '));
      await shot(`10i-users-long-value-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(base + userPath);
  });

  await step('the audit log shows the ban, its actions in words', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    // A row's cells run together in its text: the action is matched as its cell.
    const row = page.locator('tbody tr').filter({ has: page.locator('td', { hasText: /^Banned$/ }) });
    await row.first().waitFor();
    expect((await row.first().getByRole('link').count()) >= 2, 'the audit row should link its operator and target');
    await page.locator('tbody tr', { hasText: 'Action run' }).first().waitFor();
    // Targets read as their rows' labels, not ids; actions as the server labels them, never as keys.
    await row.getByRole('link', { name: 'Player 07' }).first().waitFor();
    const listed = (await page.locator('tbody').innerText());
    expect(!actionKey.test(listed), 'the audit list shows an action key: ' + listed.match(actionKey)?.[0]);
    const heads = await page.locator('thead th').allInnerTexts();
    const col = (name) => heads.findIndex((h) => h.trim() === name) + 1;
    const resources = await page.locator(`tbody tr td:nth-child(${col('Resource')})`).allInnerTexts();
    expect(resources.length > 0 && resources.every((t) => /^[A-Z]/.test(t) && !/[a-z][A-Z]/.test(t)), 'audit resources as keys: ' + [...new Set(resources)].join(', '));
    expect(resources.includes('Users') || resources.includes('Sign-in'), 'audit resources: ' + [...new Set(resources)].join(', '));
    const payloads = (await page.locator(`tbody tr td:nth-child(${col('Payload')})`).allInnerTexts()).join('\n');
    expect(!/changes \{|ip 127|userAgent|sessionsClosed/.test(payloads), 'audit payloads read as JSON keys: ' + payloads.slice(0, 300));
    const first = await leadingCells(page.locator('main'));
    expect(first.every((t) => !uuidRe.test(t.trim())), 'the audit list leads with ids');
    await shot('11-audit');
    // An update's entry shows its change as field, before and after.
    await page.locator('tbody tr', { hasText: 'update' }).first().locator('a.row-link, td a').first().click();
    const changes = page.getByRole('table', { name: 'Changes' });
    await changes.waitFor();
    expect((await countSettles(changes.locator('tbody tr'))) >= 1, 'no change rows');
    await shot('11b-audit-entry');
    await page.goBack();
  });

  await step('the audit log filters by resource, target, operator and action, and finds a player by email', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByLabel('Resource', { exact: true }).selectOption({ label: 'Users' });
    await page.waitForURL(/resource=users/);
    // The target is picked by name from the chosen resource's rows.
    await page.getByRole('combobox', { name: 'Target', exact: true }).click();
    await page.getByLabel('Search Users').fill('Player 07');
    // Enter right away: the picker waits for the results of what was typed.
    await page.keyboard.press('Enter');
    await page.waitForURL(/target_id=/);
    await page.getByRole('combobox', { name: 'Target', exact: true }).filter({ hasText: 'Player 07' }).waitFor();
    // The action is typed in words and sent as its key.
    await page.getByLabel('Action', { exact: true }).fill('Banned');
    await page.keyboard.press('Enter');
    await page.waitForURL(/action=user\.ban/);
    expect(await page.getByLabel('Action', { exact: true }).inputValue() === 'Banned', 'the action filter does not show its words');
    await page.getByRole('combobox', { name: 'Operator', exact: true }).click();
    await page.getByLabel('Search Users').fill('e2e-admin');
    await page.keyboard.press('Enter');
    await page.waitForURL(/operator_id=/);
    const q = new URL(page.url()).searchParams;
    const want = await (await page.request.get(base + '/admin-api/adminAudit?' + new URLSearchParams(['resource', 'target_id', 'action', 'operator_id'].map((k) => [k, q.get(k) ?? ''])))).json();
    expect(want.length >= 1, 'no ban of Player 07 by the admin in the audit log');
    await page.waitForFunction((ids) => [...document.querySelectorAll('tbody tr')].map((tr) => tr.querySelector('a.row-link')?.getAttribute('href')?.split('/').pop()).join() === ids, want.map((e) => String(e.id)).join());
    for (const text of await page.locator('tbody tr').allInnerTexts()) {
      expect(text.includes('Banned') && text.includes('Player 07') && text.includes('e2e-admin@example.com'), 'a filtered row: ' + text);
    }
    await shot('11c-audit-filtered');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForFunction(() => !/operator_id=|target_id=|action=|resource=/.test(location.search));
    // The search finds a player's history by their email.
    await page.getByRole('searchbox', { name: 'Search' }).fill('player07@example');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/_q=player07/);
    const found = await (await page.request.get(base + '/admin-api/adminAudit?_q=player07%40example&_start=0&_end=25')).json();
    expect(found.some((e) => e.action === 'user.ban'), 'the search does not find the ban of player07');
    await page.waitForFunction((ids) => [...document.querySelectorAll('tbody tr')].map((tr) => tr.querySelector('a.row-link')?.getAttribute('href')?.split('/').pop()).join() === ids, found.map((e) => String(e.id)).join());
    for (const text of await page.locator('tbody tr').allInnerTexts()) {
      expect(text.includes('Player 07'), 'a search row not about Player 07: ' + text);
    }
  });

  await step('edit a composite-key row (Cloud Saves)', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Cloud Saves' }).click();
    await page.getByRole('heading', { name: 'Cloud Saves' }).waitFor();
    const first = page.locator('tbody tr').first();
    await first.locator('a', { hasText: /^Player \d+$/ }).waitFor(); // user_id labelled
    await first.getByRole('link', { name: 'main', exact: true }).click();
    await page.waitForURL(/\/admin\/cloudSaves\/[A-Za-z0-9_-]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const key = JSON.parse(Buffer.from(id, 'base64url').toString());
    expect(Array.isArray(key) && key.length === 2 && key[1] === 'main', 'the row id is not [user_id, slot]: ' + JSON.stringify(key));
    await page.getByRole('heading', { name: /Cloud Saves \/ Player \d+ · main/ }).waitFor();
    await page.getByRole('link', { name: 'Edit' }).click();
    const version = page.getByLabel(/^Version/);
    await version.waitFor();
    await version.fill('4242');
    await shot('13-cloud-save-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/' + id));
    await page.locator('dd', { hasText: /^4242$/ }).waitFor();
    await page.locator('dd a', { hasText: /^Player \d+$/ }).waitFor(); // user_id keeps its label after the save
    await shot('14-cloud-save');
  });

  await step('bot players join the arena', async () => {
    await botBuilt;
    startBots(base, 3);
    await botsJoined(3, 20_000);
  });

  const arenaRow = () => page.locator('tbody tr', { has: page.getByRole('cell', { name: 'arena', exact: true }) });
  await step('Live rooms lists the arena with 3 clients', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Live rooms' }).click();
    await page.getByRole('heading', { name: 'Live rooms' }).waitFor();
    await arenaRow().getByRole('cell', { name: '3 / 20' }).waitFor();
    await shot('15-rooms');
  });

  const field = (name) => page.locator('.field', { has: page.locator('dt', { hasText: new RegExp('^' + name + '$') }) }).locator('dd');
  await step('open the arena in the inspector', async () => {
    await arenaRow().getByRole('link').click();
    await page.getByRole('heading', { name: /^Live rooms \/ arena\b/ }).waitFor();
    await field('Clients').getByText('3 / 20').waitFor();
    await page.getByRole('table', { name: 'Clients' }).locator('tbody tr').nth(2).waitFor();
    await page.getByRole('table', { name: 'Clients' }).getByRole('link', { name: /^Player 0[123]$/ }).nth(2).waitFor(); // named, not ids
    await page.getByRole('region', { name: 'State' }).getByText('"coinGoal": 5').waitFor();
    // The state is keyed by session: each key says its player.
    await page.getByRole('region', { name: 'State' }).locator('.state-who', { hasText: /Player 0[123]/ }).first().waitFor();
    // The path editor starts at a player's session, picked by name.
    const who = page.getByLabel(/^Player/);
    const sid = await page.getByRole('table', { name: 'Clients' }).locator('tbody tr').first().locator('td').nth(3).innerText();
    const name = await page.getByRole('table', { name: 'Clients' }).locator('tbody tr').first().getByRole('link').innerText();
    await who.selectOption({ label: name });
    expect((await page.getByLabel(/^Path/).inputValue()).includes(sid.trim()), 'picking a player does not start the path at their session');
  });

  await step('set coinGoal to 7 through the state editor', async () => {
    await page.getByLabel(/^Path/).fill('coinGoal');
    await page.getByLabel(/^Value/).fill('7');
    await page.getByRole('button', { name: 'Set value' }).click();
    await page.getByText('State updated').waitFor();
    await page.getByRole('region', { name: 'State' }).getByText('"coinGoal": 7').waitFor();
    await shot('16-room-inspector');
  });

  await step('lock and unlock the room', async () => {
    await page.getByRole('button', { name: 'Lock', exact: true }).click();
    await field('Locked').getByText('yes').waitFor();
    await page.getByRole('button', { name: 'Unlock', exact: true }).waitFor();
    await shot('17-room-locked');
    await page.getByRole('link', { name: 'Live rooms' }).first().click();
    await arenaRow().getByRole('cell', { name: 'locked' }).waitFor();
    await arenaRow().getByRole('link').click();
    await page.getByRole('button', { name: 'Unlock', exact: true }).click();
    await field('Locked').getByText('no').waitFor();
    await page.getByRole('button', { name: 'Lock', exact: true }).waitFor();
  });

  await step('on a phone, every room action is reachable without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      // The sidebar becomes a drawer when React sees the phone's width.
      await page.getByRole('button', { name: 'Open the menu' }).waitFor();
      const rows = page.getByRole('table', { name: 'Clients' }).locator('tbody tr');
      await rows.first().waitFor();
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide <= 390, `the room page is ${wide}px wide at 390px`);
      for (const name of ['Lock', 'Dispose']) {
        const box = await page.getByRole('button', { name, exact: true }).boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 390, `${name} is off screen at 390px: ${JSON.stringify(box)}`);
      }
      const box = await rows.first().getByRole('button', { name: /^Kick / }).boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, `Kick is off screen at 390px: ${JSON.stringify(box)}`);
      await shot('18a-room-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  await step('kick a client, named, with a reason the audit keeps', async () => {
    const rows = page.getByRole('table', { name: 'Clients' }).locator('tbody tr');
    const who = (await rows.first().getByRole('link').innerText()).trim();
    await rows.first().getByRole('button', { name: /^Kick / }).click();
    const dialog = page.getByRole('dialog', { name: `Kick ${who}?` });
    await dialog.waitFor();
    await dialog.getByLabel(/^Reason/).fill('afk in the arena');
    await shot('18-kick-confirm');
    await dialog.getByRole('button', { name: 'Kick', exact: true }).click();
    await page.locator('[data-sonner-toast]', { hasText: `${who} kicked from ` }).first().waitFor(); // the player and the room, named
    await field('Clients').getByText('2 / 20').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Clients"] tbody tr').length === 2);
    const audit = await page.evaluate(() => fetch('/admin-api/adminAudit?action=room.kick').then((r) => r.json()));
    const rowsOf = Array.isArray(audit) ? audit : audit.data ?? audit.rows ?? [];
    expect(rowsOf.some((e) => e.payload?.reason === 'afk in the arena' && e.payload?.userId), 'the kick reason and player are not in the audit: ' + JSON.stringify(audit).slice(0, 400));
  });

  await step('the audit log shows the room actions', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    for (const a of ['Kicked', 'Room locked', 'Room unlocked', 'Room state edited']) {
      await page.locator('tbody tr', { hasText: a }).first().waitFor();
    }
    const listed = await page.locator('tbody').innerText();
    expect(!actionKey.test(listed), 'the audit list shows an action key: ' + listed.match(actionKey)?.[0]);
    await shot('19-audit-rooms');
    // A kick's entry names the player and the room, each linked.
    await page.locator('tbody tr', { hasText: 'Kicked' }).first().locator('td a').first().click();
    const said = page.locator('.audit-sentence', { hasText: 'Kicked' });
    await said.waitFor();
    expect((await said.getByRole('link').count()) === 2, 'the kick entry does not link the player and the room: ' + (await said.innerText()));
    await page.goBack();
  });

  await step('"Sign out everywhere" asks first', async () => {
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
    await dialog.waitFor();
    await shot('19b-sign-out-everywhere-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const status = await page.evaluate(() => fetch('/admin-api/auth/status').then((r) => r.json()));
    expect(status.authenticated === true, 'cancelling signed out');
  });

  await germanSteps(base, consoleErrors);
  await safetySteps(base, consoleErrors);
  await conflictSteps(base, consoleErrors);
  await claimSteps(base);
  await uiDataSteps(base, consoleErrors);
  await trailSteps(base);
  await steamSteps(base, 'SQLite', consoleErrors, { zones: true });
  await keysSteps(base);
  await wordsSteps(base);
  await gameTableSteps(base);
  await phoneRoundFourSteps(base);

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

  await step('a guarded game page sends to sign-in and comes back after it', async () => {
    const before = consoleErrors.length;
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(base + '/monitor?from=e2e');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname === '/admin/login', 'guard sent to ' + page.url());
    expect(page.url().includes('next=%2Fmonitor%3Ffrom%3De2e'), 'next= is missing: ' + page.url());
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/monitor');
    expect(new URL(page.url()).search === '?from=e2e', 'landed on ' + page.url());
    expect((await page.textContent('body')).includes('"role":"admin"'), 'the game page did not see the session');
    // A 401 for a query that was in flight as the panel signed out is not
    // an error of the game page.
    const extra = consoleErrors.splice(before);
    expect(extra.every((e) => e.includes('status of 401')), 'console errors on the game page:\n  ' + extra.join('\n  '));
    // An open-redirect attempt lands on the dashboard instead.
    await page.goto(base + '/admin/login?next=' + encodeURIComponent('/\\evil.example/'));
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).origin === base, 'left the origin: ' + page.url());
    await page.goto(base + '/admin/');
  });

  await step('no errors in the browser console', async () => {
    expect(consoleErrors.length === 0, 'console errors:\n  ' + consoleErrors.join('\n  '));
  });

  // A mod, in a fresh browser context: scoped to users, userNotes, rooms
  // and guilds, without create.
  const modErrors = [];
  await step('a mod signs in and sees only their resources', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    collectErrors(page, modErrors);
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The demo's users have usernames (UserColumns.Username): the one
    // field takes either, and the mod signs in by name.
    await page.getByLabel('Email or username').waitFor();
    await signIn('player01', 'player-password');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Guilds' }).waitFor();
    await nav.getByRole('link', { name: 'Live rooms' }).waitFor();
    await nav.getByRole('link', { name: /^Reports/ }).waitFor(); // users in the mod's scopes: the reports queue
    // A link's first line is its name; Reports' badge counts the players with open reports.
    const links = (await nav.getByRole('link').allInnerTexts()).map((t) => t.split('\n')[0].trim());
    const want = ['Dashboard', 'Live rooms', 'Reports', 'Users', 'User Notes', 'Guilds'];
    await nav.getByRole('link', { name: /^Reports\s*: 4 players with open reports$/ }).waitFor();
    expect(JSON.stringify(links) === JSON.stringify(want), `sidebar: ${JSON.stringify(links)}; want ${JSON.stringify(want)}`);
    await page.getByRole('banner').getByText('mod', { exact: true }).waitFor();
    await shot('20-mod-dashboard');
  });

  await step('a mod has no Create on Users but may ban and revoke', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.locator('tbody tr').nth(5).waitFor();
    expect((await page.getByRole('link', { name: 'Create' }).count()) === 0, 'a mod is offered Create on Users');
    await page.getByRole('searchbox', { name: 'Search' }).fill('player09@example.com');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.locator('tbody tr').first().locator('a.row-link').click();
    await page.locator('dd', { hasText: 'player09@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Ban', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Revoke sessions' }).waitFor();
    await page.getByRole('tab', { name: /User Notes/ }).waitFor();
    const tabs = (await page.getByRole('tab').allInnerTexts()).map((t) => t.replace(/\d+$/, '').trim());
    expect(!tabs.some((t) => /Cloud Saves|Leaderboard|Analytics/.test(t)), 'a mod sees tabs of resources out of scope: ' + tabs.join(', '));
    expect((await page.getByRole('alert').count()) === 0, 'the user page shows an error: ' + (await page.getByRole('alert').allInnerTexts()).join(' '));
    await shot('21-mod-user');
  });

  await step('a mod is offered no change to an operator\'s account: its own, a mod\'s, an admin\'s', async () => {
    // The Users row menu and the user page, as the server rules: only an
    // admin changes the account of a mod or an admin.
    const offered = async (email) => {
      await page.goto(base + '/admin/users?' + new URLSearchParams({ _q: email }));
      await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
      await page.getByRole('button', { name: /^Actions for row / }).click();
      const items = (await page.getByRole('menu').getByRole('menuitem').allInnerTexts()).map((t) => t.trim());
      await page.keyboard.press('Escape');
      await page.locator('tbody tr').first().locator('a.row-link').click();
      await page.locator('dd', { hasText: email }).waitFor();
      await page.getByRole('heading', { name: 'Moderation' }).waitFor();
      const buttons = ['Edit', 'Delete', 'Ban', 'Unban', 'Revoke sessions'];
      const shown = [];
      for (const b of buttons) if ((await page.getByRole(b === 'Edit' ? 'link' : 'button', { name: b, exact: true }).count()) > 0) shown.push(b);
      return { items, shown };
    };
    const own = await offered('player01@example.com');
    expect(JSON.stringify(own.items) === '["View"]', 'a mod\'s menu on its own row: ' + own.items.join(', '));
    expect(own.shown.length === 0, 'a mod\'s own page offers ' + own.shown.join(', '));
    await page.getByText('This is your own account: another operator moderates it.').waitFor();
    // Others' roles: the server says them on a mod's users rows (_role).
    for (const email of ['player08@example.com', admin.email]) {
      const o = await offered(email);
      expect(JSON.stringify(o.items) === '["View"]', `a mod's menu on ${email}: ` + o.items.join(', '));
      expect(o.shown.length === 0, `a mod on the page of ${email} is offered ` + o.shown.join(', '));
      await page.getByText('An admin moderates operators\' accounts.').waitFor();
    }
    await shot('21b-mod-on-admin');
  });

  await step("a mod typing an admin's edit URL gets the form read-only, with why, and no Save", async () => {
    const [adm] = await (await page.request.get(base + '/admin-api/users?' + new URLSearchParams({ _q: admin.email }))).json();
    await page.goto(`${base}/admin/users/${adm.id}/edit`);
    await page.getByTestId('read-only-reason').getByText("only an admin changes operators' accounts").waitFor();
    expect((await page.getByRole('button', { name: 'Save' }).count()) === 0, 'a read-only form offers Save');
    const inputs = page.locator('form.record-form input, form.record-form textarea, form.record-form select');
    const n = await inputs.count();
    for (let i = 0; i < n; i++) expect(await inputs.nth(i).isDisabled(), `field ${i} of a read-only form is editable`);
    await shot('21c-mod-admin-form-read-only');
  });

  await step('a mod is not offered actions it cannot run', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Guilds' }).click();
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    await page.getByRole('button', { name: /^Actions for row / }).first().click();
    const items = (await page.getByRole('menu').getByRole('menuitem').allInnerTexts()).map((t) => t.trim());
    expect(!items.includes('Disband') && items.includes('View'), 'a mod\'s row menu: ' + items.join(', '));
    await page.keyboard.press('Escape');
    expect((await page.getByRole('button', { name: 'Recount' }).count()) === 1, 'Recount (any role) is missing');
  });

  await step('a mod visiting /admin/roles sees "not allowed"', async () => {
    await page.goto(base + '/admin/roles');
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect((await page.getByText('Loading…').count()) === 0, 'still loading');
    await page.getByRole('link', { name: 'Back to the dashboard' }).waitFor();
    await shot('22-mod-roles');
    // A built-in out of the mod's catalog is named by its label, not its key.
    await page.goto(base + '/admin/adminAudit');
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    const text = await page.locator('.not-allowed p').innerText();
    expect(text.includes('the audit log') && !text.includes('adminAudit'), 'the Not allowed page reads: ' + text);
  });

  await reportsSteps(base, modErrors);

  await step('no errors in the mod\'s browser console', async () => {
    expect(modErrors.length === 0, 'console errors:\n  ' + modErrors.join('\n  '));
    await page.context().close();
  });

  const userErrors = [];
  await step('a plain user sees "Operator role required" and can sign out', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    collectErrors(page, userErrors);
    await page.goto(base + '/admin/guilds');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn('player02@example.com', 'player-password');
    await page.getByRole('heading', { name: 'Operator role required' }).waitFor();
    await shot('23-user-operator-required');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const status = await page.evaluate(() => fetch('/admin-api/auth/status').then((r) => r.json()));
    expect(status.authenticated === false, 'still signed in after Sign out');
    expect(userErrors.length === 0, 'console errors:\n  ' + userErrors.join('\n  '));
    await page.context().close();
  });

  // Phone and dark: the admin again, at 390x844 then in the dark theme.
  const phoneErrors = [];
  const adminContext = async (options) => {
    const ctx = await browser.newContext(options);
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    collectErrors(page, phoneErrors);
    await page.goto(base + '/admin/');
    await signIn(admin.email, admin.password);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  };
  await step('at 390 px the sidebar is a drawer', async () => {
    await adminContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
    await page.getByRole('article', { name: 'Totals' }).waitFor();
    await page.locator('.series-chart canvas').first().waitFor(); // the charts, loaded lazily, are in the picture
    await shot('30-phone-dashboard');
    expect((await page.getByRole('navigation', { name: 'Resources' }).count()) === 0, 'the sidebar is on the page at 390 px');
    await page.getByRole('button', { name: 'Open the menu' }).click();
    const drawer = page.getByRole('dialog', { name: 'Menu' });
    await drawer.getByRole('link', { name: 'Users' }).waitFor();
    await shot('31-phone-drawer');
    await audit();
    await drawer.getByRole('link', { name: 'Users' }).click();
    await drawer.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Users' }).waitFor();
  });

  await step('at 390 px each row of a list is a card: title link, menu, checkbox and key fields in view, no sideways scroll', async () => {
    await page.locator('.data-card[data-row="5"]').waitFor();
    expect((await page.locator('table.data-table').count()) === 0, 'the users list is a table at 390 px');
    const m = await page.evaluate(() => ({
      page: document.scrollingElement.scrollWidth,
      cards: [...document.querySelectorAll('.data-card')].map((c) => ({
        box: [c.getBoundingClientRect().left, c.getBoundingClientRect().right],
        inner: c.scrollWidth <= c.clientWidth,
        title: c.querySelector('.card-title a.row-link')?.textContent ?? '',
        menu: c.querySelector('button[aria-label^="Actions for row"]')?.getBoundingClientRect().right ?? Infinity,
        check: !!c.querySelector('input[type=checkbox]'),
        fields: [...c.querySelectorAll('.card-fields dt')].map((d) => d.textContent),
      })),
    }));
    expect(m.page <= 390, `the users list is ${m.page}px wide at 390 px`);
    for (const c of m.cards) {
      expect(c.box[0] >= 0 && c.box[1] <= 390 && c.inner, 'a card overflows: ' + JSON.stringify(c));
      expect(c.title !== '' && c.menu <= c.box[1] && c.check, 'a card lacks its title link, menu or checkbox: ' + JSON.stringify(c));
      // The key fields: not the id, and when each joined.
      expect(c.fields.includes('Created At') && !c.fields.includes('ID'), 'a user card shows ' + c.fields.join(', '));
    }
    await shot('32-phone-users');
    // Sorting from "Sort by", and x on the focused card, as on the table.
    await page.getByLabel('Sort by').selectOption('email');
    await page.waitForURL(/[?&]_sort=email&_order=asc/);
    await page.getByRole('button', { name: 'Email: ascending; reverse the order' }).click();
    await page.waitForURL(/[?&]_order=desc/);
    // The old page stays on screen while the next loads: the new order is
    // in once the first card is the server's first (its id on hover).
    const [top] = await (await page.request.get(base + '/admin-api/users?_sort=email&_order=desc&_start=0&_end=1')).json();
    await page.locator(`.data-card[data-row="0"] .card-title a[title="${top.id}"]`).waitFor();
    const card = page.locator('.data-card[data-row="1"]');
    await card.focus();
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor();
    expect((await card.getAttribute('class'))?.includes('selected') && (await card.getByRole('checkbox').isChecked()), 'x did not select the card');
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor({ state: 'detached' });
  });

  await step('at 390 px the audit log says on each card what happened, to whom, by whom and when; j and Enter open one', async () => {
    await page.goto(base + '/admin/adminAudit');
    await page.locator('.data-card[data-row="3"]').waitFor();
    const cards = await page.locator('.data-card').evaluateAll((cs) =>
      cs.map((c) => ({
        href: c.querySelector('.card-title a.row-link')?.getAttribute('href') ?? '',
        title: c.querySelector('.card-title')?.textContent.trim() ?? '',
        fields: [...c.querySelectorAll('.card-fields > div')].map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent.trim()]),
        fits: c.scrollWidth <= c.clientWidth && c.getBoundingClientRect().right <= 390,
      })),
    );
    expect(cards.length >= 4, 'audit cards: ' + cards.length);
    for (const c of cards) {
      // The title says what happened and when: the action in words
      // ("Signed in"), never its key ("auth.login"), and the time.
      expect(/^[A-Z]/.test(c.title) && !/^[a-z_]+\.[a-z_.]+/.test(c.title), 'an audit card is titled ' + c.title);
      expect(/\d{4}/.test(c.title) && /\d:\d\d/.test(c.title), 'an audit card\'s title has no time: ' + c.title);
      // Under it, to whom and by whom, said once.
      const names = c.fields.map(([k]) => k).join(', ');
      expect(names === 'Target, Operator', 'an audit card shows ' + names);
      const f = Object.fromEntries(c.fields);
      expect(f.Target !== '' && f.Operator !== '', 'an audit card without target or operator: ' + JSON.stringify(f));
      expect(c.fits, 'an audit card overflows: ' + JSON.stringify(c));
    }
    // This session's sign-in, by and of the admin, is on a card.
    expect(cards.some((c) => { const f = Object.fromEntries(c.fields); return c.title.startsWith('Signed in') && f.Operator === admin.email && f.Target === admin.email; }), 'no card says the admin signed in: ' + JSON.stringify(cards.slice(0, 3)));
    const wide = await page.evaluate(() => document.scrollingElement.scrollWidth);
    expect(wide <= 390, `the audit log is ${wide}px wide at 390 px`);
    await shot('32b-phone-audit');
    await audit();
    // The keyboard, as on the table: j from the page, Enter opens.
    const focused = () => page.evaluate(() => document.activeElement?.closest('.data-card[data-row]')?.getAttribute('data-row') ?? document.activeElement?.tagName);
    await page.locator('h1').first().click();
    await page.keyboard.press('j');
    expect((await focused()) === '0', 'j from the page focuses ' + (await focused()));
    await page.keyboard.press('j');
    expect((await focused()) === '1', 'j again focuses ' + (await focused()));
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === cards[1].href);
    await page.goBack();
    await page.locator('.data-card[data-row="1"]').waitFor();
  });

  await step('at 390 px no list scrolls sideways: guilds, matches and their Deleted view, chat log, map stats', async () => {
    for (const p of ['/guilds', '/matches', '/matches?_deleted=only', '/chat_log', '/map_stats']) {
      await page.goto(base + '/admin' + p);
      await page.locator('.data-card').first().waitFor();
      const m = await page.evaluate(() => ({ page: document.scrollingElement.scrollWidth, table: !!document.querySelector('table.data-table'), titles: [...document.querySelectorAll('.data-card .card-title')].map((t) => t.textContent) }));
      expect(m.page <= 390 && !m.table, `${p} at 390 px: ${JSON.stringify(m).slice(0, 200)}`);
      expect(m.titles.every((t) => t.trim() !== ''), `${p}: a card without a title`);
    }
    // The keyless chat log has no row page: no card links to one.
    expect((await page.goto(base + '/admin/chat_log'), await page.locator('.data-card').first().waitFor(), await page.locator('.data-card a.row-link').count()) === 0, 'a chat line links to a row page');
  });

  await step('at 390 px a form is one column', async () => {
    await page.goto(base + '/admin/guilds/new');
    await page.getByRole('heading', { name: 'New Guild' }).waitFor();
    const lefts = await page.locator('.record-form input, .record-form select, .record-form textarea, .record-form .fk-trigger').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
    expect(lefts.length >= 2 && new Set(lefts).size === 1, 'form fields side by side: ' + lefts.join(', '));
    await shot('33-phone-form');
    await openUser(playerEmail);
    await page.getByRole('region', { name: 'Moderation' }).waitFor();
    await shot('34-phone-user');
    // A player's related rows are cards too, each with when it happened
    // (Player 05 has a save, events and a chat line).
    await openUser('player05@example.com');
    for (const tab of ['Cloud Saves', 'Analytics Events', 'Chat log']) {
      await page.getByRole('tab', { name: new RegExp('^' + tab, 'i') }).click();
      const panel = page.getByRole('tabpanel');
      await panel.locator('.data-card').first().waitFor();
      const m = await panel.evaluate((el) => ({ page: document.scrollingElement.scrollWidth, table: !!el.querySelector('table'), when: [...el.querySelectorAll('.data-card')].map((c) => c.querySelector('time')?.textContent ?? '') }));
      expect(m.page <= 390 && !m.table, `the ${tab} tab at 390 px: ${JSON.stringify(m).slice(0, 300)}`);
      expect(m.when.every((t) => /\d{4}/.test(t)), `a ${tab} card says not when: ${m.when.join(' | ')}`);
    }
    await shot('34b-phone-user-tab');
    await audit();
    await page.context().close();
  });

  await step('prefers-color-scheme: dark gives the dark theme', async () => {
    await adminContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
    await page.getByRole('article', { name: 'Totals' }).waitFor();
    await page.locator('.series-chart canvas').first().waitFor(); // the charts, loaded lazily, are in the picture
    const bg = await page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.querySelector('.content')).backgroundColor, getComputedStyle(document.documentElement).backgroundColor]);
    expect(bg[0] === 'dark', 'data-theme: ' + bg[0]);
    const rgb = bg[2].match(/\d+/g).map(Number);
    expect(rgb[0] + rgb[1] + rgb[2] < 150, 'the page background is not dark: ' + bg[2]);
    await shot('35-dark-dashboard-1440');
    await openUser(playerEmail);
    await page.getByRole('region', { name: 'Moderation' }).waitFor();
    await shot('36-dark-user-1440');
    await page.goto(base + '/admin/guilds');
    await page.getByRole('cell', { name: 'Sky Pirates' }).waitFor();
    await shot('37-dark-guilds-1440');
  });

  await step('the theme toggle is remembered in this browser', async () => {
    await page.getByRole('button', { name: 'Use the light theme' }).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await page.reload();
    await page.getByRole('cell', { name: 'Sky Pirates' }).waitFor();
    expect((await page.evaluate(() => document.documentElement.dataset.theme)) === 'light', 'the light choice was forgotten on reload');
    await page.getByRole('button', { name: 'Use the dark theme' }).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(base + '/admin/');
    await page.getByRole('article', { name: 'Totals' }).waitFor();
    await page.locator('.series-chart canvas').first().waitFor(); // the charts, loaded lazily, are in the picture
    await shot('38-dark-dashboard-390');
    await openUser(playerEmail);
    await page.getByRole('region', { name: 'Moderation' }).waitFor();
    await shot('39-dark-user-390');
    await page.goto(base + '/admin/adminAudit');
    await page.locator('.data-card[data-row="3"]').waitFor();
    await shot('39b-dark-audit-390');
    await audit();
    expect(phoneErrors.length === 0, 'console errors:\n  ' + phoneErrors.join('\n  '));
    await page.context().close();
  });

  // Two-factor sign-in, as the mod: enrol on the account page with a code
  // computed here, sign out, and sign back in with the next code.
  const totpErrors = [];
  let secret = '';
  let recovery = [];
  await step('enrol a TOTP on the account page', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    collectErrors(page, totpErrors);
    await page.goto(base + '/admin/');
    await signIn('player01@example.com', 'player-password');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('cell', { name: '127.0.0.1' }).first().waitFor(); // recent sign-ins
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await page.getByText("Can't scan it?").click();
    secret = (await page.getByTestId('totp-secret').innerText()).trim();
    expect(/^[A-Z2-7]{16,}$/.test(secret), 'secret: ' + secret);
    await shot('24-totp-enrol-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('25-totp-enrol-390');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByLabel('Code from the app').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    recovery = (await page.getByTestId('recovery-codes').locator('li').allInnerTexts()).map((t) => t.trim());
    expect(recovery.length === 10, 'recovery codes: ' + recovery.join(' '));
    await shot('26-totp-recovery-codes');
    await page.getByRole('button', { name: 'I saved them' }).click();
    await page.getByText('Sign-in asks for a code').waitFor();
    await shot('27-account-totp-on-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('28-account-totp-on-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await step('sign out and sign back in with a code', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn('player01', 'player-password'); // by username, then the code
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await shot('29-totp-step');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').getByText('wrong, expired or already used').waitFor();
    // The confirming code spent this time step; the next one is accepted
    // (one step of clock drift either way).
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  await step('a recovery code signs in once', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn('player01@example.com', 'player-password');
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recovery[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByText('9 recovery codes left').waitFor();
    expect(totpErrors.filter((e) => !/status of 400/.test(e)).length === 0, 'console errors:\n  ' + totpErrors.join('\n  '));
    await page.context().close();
  });

  await dbSteps('PostgreSQL');
  await dbSteps('MariaDB');
}

// ---- ui-data steps: lists, CSV export, forms, speed, palette ----
// Run while the first admin is signed in, after player07 was banned and
// with the bots in the arena.
async function uiDataSteps(base, consoleErrors) {
  const apiJSON = apiReader(base);
  const lastAudit = async (action, resource) =>
    apiJSON(`/adminAudit?action=${action}&resource=${resource}&_sort=id&_order=desc&_end=50`);

  // The palette first, while the bots are still in the arena.
  await step('palette: Ctrl-K jumps to a resource, a user, a room', async () => {
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const input = page.locator('.palette [cmdk-input]');
    await page.keyboard.press('Control+k');
    await input.fill('leaderb');
    await page.getByRole('option', { name: 'Leaderboard Entries' }).waitFor();
    await page.getByRole('option', { name: 'Users' }).waitFor({ state: 'detached' });
    expect((await page.getByRole('option').count()) === 2, 'palette options for "leaderb": ' + (await page.getByRole('option').allInnerTexts()).join(', '));
    await shot('36-palette');
    await page.getByRole('option', { name: 'Leaderboards' }).click();
    await page.getByRole('heading', { name: 'Leaderboards' }).waitFor();
    await page.keyboard.press('Control+k');
    await input.fill('player03@');
    await page.getByRole('option', { name: /Player 03/ }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('dd', { hasText: 'player03@example.com' }).waitFor();
    await page.keyboard.press('Control+k');
    await input.fill('arena');
    // The room, not the leaderboard "Weekly arena" that /_search finds too.
    await page.getByRole('group', { name: 'Rooms' }).getByRole('option', { name: /arena/ }).first().click();
    await page.waitForURL(/\/admin\/rooms\/.+/);
    await page.keyboard.press('Control+k');
    await input.waitFor();
    // Ctrl-K right after the dialog closed, before its close event (a
    // task later) reaches React, opens it again and keeps it open.
    await page.evaluate(() => {
      document.querySelector('dialog.palette').close();
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true }));
    });
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100))); // the close event has run
    expect(await input.isVisible(), 'Ctrl-K between a close and its close event left the palette shut');
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
  });

  await step('palette: "Ban user…" bans the user picked', async () => {
    await page.keyboard.press('Control+k');
    const input = page.locator('.palette [cmdk-input]');
    await input.fill('ban');
    await page.getByRole('option', { name: 'Ban user…' }).click();
    await input.fill('player11@');
    await page.getByRole('option', { name: /Player 11/ }).click();
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.getByLabel(/^Reason/).fill('e2e: palette ban');
    await palette.getByRole('radio', { name: '7 days' }).check();
    await palette.getByRole('button', { name: 'Ban Player 11' }).click();
    await page.getByText(/Player 11 banned/).waitFor();
    // Undo, as the other ban toasts offer (not pressed: the ban stays).
    await page.locator('[data-sonner-toast]', { hasText: 'Player 11 banned' }).getByRole('button', { name: 'Undo' }).waitFor();
    const [u] = await apiJSON('/users?email=player11%40example.com');
    expect(u?.ban?.reason === 'e2e: palette ban', 'player11 ban: ' + JSON.stringify(u?.ban));
    const days = (new Date(u.ban.until).getTime() - Date.now()) / 86_400_000;
    expect(days > 6.9 && days <= 7, 'a 7-day ban ends in ' + days + ' days');
  });

  await step('palette: keys typed right after Ctrl-K land in the box, loaded or not', async () => {
    // Loaded when the page is idle, before any Ctrl-K.
    const p = await page.context().newPage();
    const preloaded = p.waitForResponse((r) => /\/assets\/PaletteBody-[^/]*\.js$/.test(r.url()), { timeout: 10_000 });
    await p.goto(base + '/admin/');
    await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await preloaded;
    await p.close();
    // Still on its way (held back here): what is typed waits in the box.
    const q = await page.context().newPage();
    q.setDefaultTimeout(10_000);
    collectErrors(q, consoleErrors);
    await q.route(/\/assets\/PaletteBody-[^/]*\.js$/, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await q.goto(base + '/admin/');
    await q.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await q.keyboard.press('Control+k');
    await q.keyboard.type('player03@');
    const early = await q.locator('dialog.palette input').inputValue();
    expect(early === 'player03@', 'typed before the palette loaded: ' + JSON.stringify(early));
    await q.getByRole('option', { name: /Player 03/ }).waitFor();
    const input = q.locator('.palette [cmdk-input]');
    expect((await input.inputValue()) === 'player03@', 'the box holds ' + JSON.stringify(await input.inputValue()));
    await q.keyboard.type('ex');
    expect((await input.inputValue()) === 'player03@ex', 'typing on after the palette loaded: ' + JSON.stringify(await input.inputValue()));
    await q.keyboard.press('Enter');
    await q.locator('dd', { hasText: 'player03@example.com' }).waitFor();
    await q.close();
  });

  await step('palette: a guild found by its name (GET /_search) opens; mixed results at 1440 and 390 px', async () => {
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const input = page.locator('.palette [cmdk-input]');
    // Mixed: resources by their names (Matches, Map stats) and rows by
    // their labels (analytics events named match_…).
    await page.keyboard.press('Control+k');
    await input.fill('ma');
    await page.getByRole('option', { name: 'Matches' }).waitFor();
    await page.locator('.palette [cmdk-group-heading]').filter({ hasText: 'Analytics Events' }).waitFor();
    for (const [w, h] of [[1440, 900], [390, 844]]) {
      await page.setViewportSize({ width: w, height: h });
      await shot(`36b-palette-mixed-${w}`);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await input.fill('night');
    const owls = page.getByRole('option', { name: /Night Owls/ });
    await owls.waitFor();
    await shot('36c-palette-night');
    await page.keyboard.press('Enter'); // the first option, the one row found
    await page.getByRole('heading', { name: 'Guilds / Night Owls' }).waitFor();
    // What the server answers: by the start of a label, each hit named
    // with its resource.
    const found = await apiJSON('/_search?q=night&limit=5');
    expect(found.results.some((h) => h.resource === 'guilds' && h.label === 'Guilds' && h.title === 'Night Owls'), 'GET /_search?q=night: ' + JSON.stringify(found));
  });

  await step('keyboard: j/k and arrows move the row focus, x selects, Enter opens, Next page keeps focus in the table', async () => {
    await page.goto(base + '/admin/users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.locator('tbody tr[data-row="1"]').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.closest('tr[data-row]')?.getAttribute('data-row') ?? document.activeElement?.tagName);
    await page.locator('h1').first().click(); // focus on the page, none on a field
    await page.keyboard.press('j');
    expect((await focused()) === '0', 'j from the page focuses ' + (await focused()));
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    expect((await focused()) === '2', 'j, ArrowDown focus ' + (await focused()));
    await page.keyboard.press('k');
    expect((await focused()) === '1', 'k focuses ' + (await focused()));
    const row = page.locator('tbody tr[data-row="1"]');
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor();
    expect((await row.getAttribute('class'))?.includes('selected'), 'x did not select the row');
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor({ state: 'detached' });
    // Typing in a field is typing.
    const search = page.getByRole('searchbox').first();
    await search.focus();
    await page.keyboard.type('jkx');
    expect((await search.inputValue()) === 'jkx', 'typing j, k, x in the search box gave ' + JSON.stringify(await search.inputValue()));
    await search.fill('');
    await page.locator('tbody tr[data-row="1"]').waitFor();
    // Enter opens the focused row.
    const href = await page.locator('tbody tr[data-row="1"] a.row-link').getAttribute('href');
    await page.locator('tbody tr[data-row="1"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === href);
    await page.goBack();
    await page.locator('tbody tr[data-row="1"]').waitFor();
    // Next (pressed from the keyboard): the focus goes to the new page's first row.
    const next = page.getByRole('button', { name: 'Next' });
    await next.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/[?&]page=1/);
    await page.waitForFunction(() => document.activeElement?.matches('.data-table tbody tr[data-row="0"]'), null, { timeout: 5000 }).catch(() => {});
    expect((await focused()) === '0', 'after Next the focus is on ' + (await focused()));
    await page.keyboard.press('j');
    expect((await focused()) === '1', 'j on the new page focuses ' + (await focused()));
  });

  await step('data: the first data is two round trips after the HTML', async () => {
    const p = await page.context().newPage();
    const seen = [];
    p.on('request', (r) => r.url().includes('/admin-api') && seen.push(new URL(r.url()).pathname + new URL(r.url()).search));
    await p.goto(base + '/admin/guilds');
    await p.getByRole('cell', { name: 'Sky Pirates' }).waitFor();
    await p.close();
    expect(seen[0] === '/admin-api/auth/status?with=catalog', 'first API request: ' + seen[0]);
    expect(!seen.includes('/admin-api'), 'the catalog was fetched on its own: ' + seen.join(', '));
    expect(seen.some((u) => u.startsWith('/admin-api/guilds')), 'no list request: ' + seen.join(', '));
  });

  await step('data: scripts and styles come precompressed, first-load JS under 200 KB gzip', async () => {
    const p = await page.context().newPage();
    // First-load JS is what the browser runs before it can ask for the
    // first data: the scripts that arrive before the dashboard's request.
    // The charts' chunk is imported once that data is there, so it never
    // holds up the page, and is measured apart.
    const scripts = new Set();
    const later = new Set();
    let asked = false;
    p.on('request', (r) => new URL(r.url()).pathname.endsWith('/_dashboard') && (asked = true));
    p.on('response', (r) => /\/assets\/.*\.js$/.test(new URL(r.url()).pathname) && (asked ? later : scripts).add(r.url()));
    await p.goto(base + '/admin/');
    await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await p.locator('.series-chart canvas').first().waitFor();
    await p.close();
    expect([...later].some((u) => /SeriesChart/.test(u)) && ![...scripts].some((u) => /SeriesChart/.test(u)), 'the charts are not loaded after the data: ' + [...scripts, '|', ...later].join(' '));
    expect(scripts.size > 0, 'no script loaded');
    let gz = 0;
    for (const url of scripts) {
      // node:http, which leaves the body as sent (fetch would decode it).
      const raw = (enc) =>
        new Promise((resolve, reject) => {
          http.get(url, { headers: { 'Accept-Encoding': enc } }, (res) => {
            let len = 0;
            res.on('data', (d) => (len += d.length));
            res.on('end', () => resolve({ enc: res.headers['content-encoding'], len }));
            res.on('error', reject);
          }).on('error', reject);
        });
      // A script under 1 KiB (a chunk's runtime) is sent as it is: its
      // compressed form would save nothing (scripts/precompress.mjs).
      const plain = await raw('identity');
      if (plain.len < 1024) {
        gz += plain.len;
        continue;
      }
      const br = await raw('br');
      expect(br.enc === 'br', `${url}: Content-Encoding ${br.enc} for br`);
      const g = await raw('gzip');
      expect(g.enc === 'gzip', `${url}: Content-Encoding ${g.enc} for gzip`);
      gz += g.len;
    }
    expect(gz < 200 * 1024, `first-load JS is ${gz} bytes gzip`);
  });

  await step('lists: rows per page and jump to page', async () => {
    await page.goto(base + '/admin/analyticsEvents');
    await page.getByLabel('Rows per page').selectOption('50');
    await page.waitForURL(/size=50/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 50);
    await page.getByLabel('Go to page').fill('3');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(/page=2/);
    await page.getByTestId('list-total').filter({ hasText: /^101–150 of / }).waitFor();
    await shot('30-list-page-size');
  });

  await step('lists: past the deepest offset page (10,000 rows), Next and Previous page by cursor', async () => {
    const firstId = async () => (await page.getByRole('checkbox', { name: /^Select row / }).first().getAttribute('aria-label')).replace('Select row ', '');
    const lastId = async () => (await page.getByRole('checkbox', { name: /^Select row / }).last().getAttribute('aria-label')).replace('Select row ', '');
    await page.goto(base + '/admin/analyticsEvents?size=250&page=40');
    await page.getByTestId('list-total').filter({ hasText: /^10001–10250 of / }).waitFor();
    const before = await lastId();
    const next = page.getByRole('button', { name: 'Next' });
    await next.click();
    await page.waitForURL(/page=41.*after=|after=.*page=41/);
    await page.getByTestId('list-total').filter({ hasText: /^10251–10500 of / }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 250);
    const p41 = await firstId();
    expect(Number(p41) < Number(before), `page 41 starts at ${p41}, after page 40's last ${before}`);
    // The page the cursor names is the one an offset would have been.
    const want = await apiJSON('/analyticsEvents?_start=10000&_end=10250');
    expect(String(want[want.length - 1].id) === before, `page 40 ends at ${before}, the API's offset page at ${want[want.length - 1].id}`);
    await next.click();
    await page.waitForURL(/page=42/);
    await page.getByTestId('list-total').filter({ hasText: /^10501–10750 of / }).waitFor();
    const previous = page.getByRole('button', { name: 'Previous' });
    await previous.click();
    await page.waitForURL(/page=41/);
    await page.getByTestId('list-total').filter({ hasText: /^10251–10500 of / }).waitFor();
    expect((await firstId()) === p41, 'Previous from page 42 is not page 41');
    await previous.click();
    await page.waitForURL((u) => u.searchParams.get('page') === '40' && !u.searchParams.has('after'));
    await page.getByTestId('list-total').filter({ hasText: /^10001–10250 of / }).waitFor();
    // A jump goes as deep as the offset pages; Next goes on from there.
    await page.goto(base + '/admin/analyticsEvents?size=250&page=1');
    await page.getByTestId('list-total').filter({ hasText: /^251–500 of / }).waitFor();
    const jump = page.getByLabel('Go to page');
    expect((await jump.getAttribute('max')) === '41', 'a jump goes past the offset pages: max ' + (await jump.getAttribute('max')));
    await jump.fill('41');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(/page=40/);
    await shot('30b-list-past-offset-pages');
  });

  await step('lists: an estimated total reads "about N" until counted exactly', async () => {
    await page.goto(base + '/admin/analyticsEvents?_count=estimate');
    await page.getByTestId('list-total').filter({ hasText: /of about / }).waitFor();
    await page.getByRole('button', { name: 'Count exactly' }).click();
    await page.waitForURL(/_count=exact/);
    await page.getByTestId('list-total').filter({ hasText: /of [\d,]+$/ }).waitFor();
    expect((await page.getByRole('button', { name: 'Count exactly' }).count()) === 0, '"Count exactly" stays after counting');
  });

  await step('lists: "is not empty" / "is empty" filters (banned users)', async () => {
    await page.goto(base + '/admin/users');
    await page.getByLabel('Filter column').selectOption('ban');
    const ops = await page.getByLabel('Filter operator').locator('option').allInnerTexts();
    expect(JSON.stringify(ops) === JSON.stringify(['contains', 'key is', 'is empty', 'is not empty']), 'JSON column operators: ' + ops.join(', '));
    await page.getByLabel('Filter operator').selectOption({ label: 'is not empty' });
    expect((await page.getByLabel('Filter value').count()) === 0, 'an empty/not-empty filter asks for a value');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.waitForURL(/ban_null=false/);
    await page.getByRole('cell', { name: 'player07@example.com' }).waitFor();
    const n = await countSettles(page.locator('tbody tr'));
    const banned = (await apiJSON('/users?ban_null=false')).length;
    expect(n === banned && n >= 1, `${n} rows shown, ${banned} banned users`);
    await page.getByText('Ban is not empty').waitFor();
    await shot('31-banned-filter');
    await page.getByRole('button', { name: 'Remove filter ban_null' }).click();
    await page.waitForFunction((b) => document.querySelectorAll('tbody tr').length > b, banned);
    // Only the catalog's filterable columns are offered.
    const cols = await page.getByLabel('Filter column').locator('option').allInnerTexts();
    expect(cols.includes('Email') && cols.includes('Ban'), 'filter columns: ' + cols.join(', '));
  });

  await step('lists: bulk delete, one confirm, one audit row each, failures reported', async () => {
    await page.goto(base + '/admin/analyticsEvents');
    const boxes = page.getByRole('checkbox', { name: /^Select row / });
    await boxes.nth(3).waitFor();
    const ids = [];
    for (const i of [0, 1, 2]) {
      await boxes.nth(i).check();
      ids.push((await boxes.nth(i).getAttribute('aria-label')).replace('Select row ', ''));
    }
    await page.getByRole('region', { name: 'Selection' }).getByText('3 selected').waitFor();
    // Another operator deletes one of them first: that one fails.
    const gone = await page.request.delete(`${base}/admin-api/analyticsEvents/${ids[2]}`, { headers: { Origin: base } });
    expect(gone.ok(), 'the concurrent delete failed: ' + gone.status());
    const errorsBefore = consoleErrors.length;
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 3 rows of Analytics Events?' });
    await dialog.waitFor();
    // It opens on Cancel: Enter pressed once too often deletes nothing.
    await waitFocus(dialog.getByRole('button', { name: 'Cancel' }), 'the Delete dialog does not open on Cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('region', { name: 'Selection' }).getByText('3 selected').waitFor();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await dialog.getByRole('button', { name: 'Delete 3' }).click();
    await page.getByText(/Deleted 2 of 3; 1 failed/).waitFor();
    // The browser logs the one refused DELETE (404): expected, and taken
    // off the list the console step checks.
    const fresh = consoleErrors.splice(errorsBefore);
    expect(fresh.length === 1 && /404/.test(fresh[0]), 'console errors of the bulk delete: ' + fresh.join(' | '));
    await shot('32-bulk-delete-partial');
    await page.getByRole('region', { name: 'Selection' }).getByText('1 selected').waitFor();
    const audit = await lastAudit('delete', 'analyticsEvents');
    for (const id of ids) {
      expect(audit.filter((a) => a.target_id === id).length === 1, `audit rows for ${id}: ${audit.filter((a) => a.target_id === id).length}`);
    }
    for (const id of ids) {
      const r = await page.request.get(`${base}/admin-api/analyticsEvents/${id}`);
      expect(r.status() === 404, `row ${id} still there`);
    }
  });

  await step('a deleted row\'s page says it is gone, offers no Edit or Delete, and links its audit entries', async () => {
    const [entry] = await lastAudit('delete', 'analyticsEvents');
    const before = consoleErrors.length;
    await page.goto(base + '/admin/analyticsEvents/' + entry.target_id);
    await page.getByRole('status').filter({ hasText: 'it was deleted, or the link is wrong' }).waitFor();
    expect((await page.getByRole('link', { name: 'Edit', exact: true }).count()) === 0, 'a deleted row offers Edit');
    expect((await page.getByRole('button', { name: 'Delete', exact: true }).count()) === 0, 'a deleted row offers Delete');
    await shot('32b-deleted-row');
    await page.getByRole('link', { name: 'Its audit entries' }).click();
    await page.locator('tbody tr').filter({ hasText: 'delete' }).first().waitFor();
    const extra = consoleErrors.splice(before);
    expect(extra.every((e) => /404/.test(e)), 'console errors: ' + extra.join(' | '));
  });

  await step('a deleted row comes back from its audit entry: Restore', async () => {
    const [entry] = await lastAudit('delete', 'analyticsEvents');
    await page.goto(base + '/admin/adminAudit/' + entry.id);
    await page.getByRole('button', { name: 'Restore this row…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore this row?' });
    await dialog.getByRole('button', { name: 'Restore' }).click();
    // Restored, the row's page opens on its history: the delete, then the revert.
    await page.waitForURL(new RegExp(`/admin/analyticsEvents/${entry.target_id}\\?tab=_history$`));
    const entries = page.locator('.history-entry');
    await entries.filter({ hasText: 'reverted' }).first().waitFor();
    expect((await entries.first().innerText()).includes('Reverted'), 'the newest history entry is not the revert');
    const r = await page.request.get(`${base}/admin-api/analyticsEvents/${entry.target_id}`);
    expect(r.ok(), 'the restored row is not there: ' + r.status());
  });

  await step('a delete is undone from its toast: the row is back, the undo audited as a revert', async () => {
    await page.goto(base + '/admin/analyticsEvents');
    const first = page.locator('tbody tr').first();
    await first.locator('a.row-link').waitFor();
    const id = (await first.getByRole('checkbox').getAttribute('aria-label')).replace('Select row ', '');
    await first.getByRole('button', { name: /^Actions for row / }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    const text = await dialog.innerText();
    expect(!/for good/.test(text) && /History/.test(text), 'the delete dialog reads: ' + text);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: ' deleted' });
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByText(/ restored$/).first().waitFor();
    const r = await page.request.get(`${base}/admin-api/analyticsEvents/${id}`);
    expect(r.ok(), 'the row is not back: ' + r.status());
    const [entry] = await lastAudit('revert', 'analyticsEvents');
    expect(entry && entry.target_id === id, 'the undo is not audited as a revert: ' + JSON.stringify(entry));
  });

  await step('lists: a bulk action runs on the selection ({ids})', async () => {
    await page.goto(base + '/admin/guilds');
    const boxes = page.getByRole('checkbox', { name: /^Select row / });
    await boxes.nth(1).waitFor();
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: /^Recount/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Run "Recount" on 2 selected?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Recount' }).click();
    await dialog.waitFor({ state: 'hidden' });
    let entry;
    for (let i = 0; i < 50 && !entry; i++) {
      entry = (await lastAudit('custom', 'guilds')).find((a) => Array.isArray(a.payload?.args?.ids));
      if (!entry) await page.waitForTimeout(100);
    }
    expect(entry && entry.payload.args.ids.length === 2, 'no audit entry with the 2 selected ids');
  });

  await step("a row's own actions are on its page: Disband asks, then leaves for the list with the guild gone", async () => {
    const errorsBefore = consoleErrors.length;
    const [owner] = await (await page.request.get(base + '/admin-api/users?_end=1')).json();
    const made = await page.request.post(base + '/admin-api/guilds', { data: { name: 'E2E Disbanders', owner_id: owner.id }, headers: { Origin: base } });
    expect(made.ok(), 'create answered ' + made.status() + ' ' + (await made.text()));
    const guild = await made.json();
    await page.goto(`${base}/admin/guilds/${guild.id}`);
    await page.getByRole('heading', { name: 'Guilds / E2E Disbanders' }).waitFor();
    await shot('18b-guild-actions');
    await page.getByRole('button', { name: 'Disband', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Disband guild?' });
    await dialog.getByRole('button', { name: 'Disband' }).click();
    const done = page.locator('[data-sonner-toast]', { hasText: 'Disband: done' }).first();
    await done.waitFor();
    await page.waitForURL(/\/admin\/guilds$/);
    await done.getByRole('button', { name: /close/i }).click(); // it shows the handler's answer until closed
    // The page asks for the row once more, to know it is gone: the
    // browser logs those 404s, expected.
    const gone404 = consoleErrors.splice(errorsBefore);
    expect(gone404.every((e) => /status of 404/.test(e)), 'console errors of the disband: ' + gone404.join(' | '));
    const gone = await page.request.get(`${base}/admin-api/guilds/${guild.id}`);
    expect(gone.status() === 404, 'the disbanded guild answers ' + gone.status());
  });

  await step('export: the current filter downloads as CSV, audited with its row count', async () => {
    await page.goto(base + '/admin/guilds?name_like=Sky');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const file = await download.path();
    const lines = fs.readFileSync(file, 'utf8').trim().split(/\r?\n/);
    // Headed by the labels the list shows, for whoever opens it.
    expect(lines.length === 2 && lines[0].replace(/^\uFEFF/, '').startsWith('ID,Name,Owner') && lines[1].includes('Sky Pirates'), 'CSV: ' + lines.join(' | '));
    expect(/^guilds-.*\.csv$/.test(download.suggestedFilename()), 'file name ' + download.suggestedFilename());
    const [entry] = await lastAudit('export', 'guilds');
    expect(entry && entry.payload.rows === 1 && entry.payload.query === 'name_like=Sky&_headers=labels', 'export audit: ' + JSON.stringify(entry));
    for (const res of ['users', 'configs', 'adminAudit']) {
      await page.goto(base + '/admin/' + res);
      await page.getByRole('link', { name: 'Export CSV' }).waitFor();
    }
  });

  await step('forms: required fields and limits are checked before sending, the first bad field focused', async () => {
    await page.goto(base + '/admin/guilds/new');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Name is required').waitFor();
    await page.getByText('Owner is required').waitFor();
    await waitFocus(page.getByLabel(/^Name/), 'focus did not go to the first bad field');
    expect((await page.getByLabel(/^Name/).getAttribute('aria-invalid')) === 'true', 'the bad field is not marked invalid');
    await shot('33a-form-required');
    // The server says the same, per field, to a client that skips the form.
    const r = await (await page.request.post(base + '/admin-api/guilds', { data: { name: ' ' } })).json();
    expect(r.code === 'validation' && r.fields?.name === 'Name is required' && r.fields?.owner_id === 'Owner is required', 'server answer: ' + JSON.stringify(r));
  });

  await step('forms: a foreign key is a searchable picker showing labels', async () => {
    await page.goto(base + '/admin/guilds/new');
    await page.getByLabel(/^Name/).fill('E2E Pickers');
    await page.getByLabel(/^Owner/).click();
    await page.getByPlaceholder('Search users…').fill('Player 05');
    // The first match is highlighted, so Enter picks it.
    await page.getByRole('option', { name: /^Player 05/, selected: true }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByLabel(/^Owner/).filter({ hasText: 'Player 05' }).waitFor();
    await shot('33-fk-picker');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Guilds / E2E Pickers' }).waitFor();
    await page.locator('dd a', { hasText: 'Player 05' }).waitFor();
  });

  await step('forms: choices are a select; DB-filled timestamps are read-only; dates name the time zone', async () => {
    await page.goto(base + '/admin/roles/new');
    await page.getByLabel(/^Role/).locator('option', { hasText: 'mod' }).waitFor({ state: 'attached' });
    const opts = await page.getByLabel(/^Role/).locator('option').allInnerTexts();
    expect(JSON.stringify(opts) === JSON.stringify(['Choose…', 'admin', 'mod', 'user']), 'role options: ' + opts.join(', '));
    const save = (await apiJSON('/cloudSaves?_end=1'))[0];
    const key = Buffer.from(JSON.stringify([save.user_id, save.slot])).toString('base64url');
    await page.goto(`${base}/admin/cloudSaves/${key}/edit`);
    const updated = page.getByLabel(/^Updated At/);
    await updated.waitFor();
    expect(await updated.isDisabled(), 'updated_at is editable');
    await page.getByText(/in your time zone, /).waitFor();
  });

  await step('forms: a boolean is a switch', async () => {
    await page.goto(base + '/admin/guilds?name_like=Night');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.locator('tbody tr').first().locator('a.row-link').click();
    await page.getByRole('link', { name: 'Edit' }).click();
    const sw = page.getByRole('switch', { name: 'Recruiting' });
    await sw.waitFor();
    expect((await sw.getAttribute('aria-checked')) === 'true', 'a seeded guild is not recruiting');
    await sw.press('Space');
    expect((await sw.getAttribute('aria-checked')) === 'false', 'Space did not turn the switch off');
    await shot('34a-switch');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Guilds / Night Owls' }).waitFor();
    const [g] = await apiJSON('/guilds?name=Night%20Owls');
    expect(g?.recruiting === false, 'recruiting after save: ' + JSON.stringify(g));
  });

  await step('forms: JSON fields use a lazily loaded editor that validates and formats', async () => {
    await page.goto(base + '/admin/configs/new');
    await page.getByLabel(/^Key/).fill('e2e.editor');
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    await editor.click();
    await page.keyboard.type('{"a":1,"b":[1,2');
    await page.getByText(/^Not valid JSON/).waitFor();
    await page.keyboard.type(']}');
    await page.getByText('Valid JSON').waitFor();
    await page.getByRole('button', { name: 'Format' }).click();
    await page.locator('.cm-line', { hasText: '"b": [' }).waitFor();
    await shot('34-json-editor');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /Configs \/ e2e\.editor/ }).waitFor();
  });

  await step('forms: leaving with unsaved changes asks first', async () => {
    await page.goto(base + '/admin/guilds/new');
    await page.getByLabel(/^Name/).fill('Unsaved guild');
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await shot('35-unsaved');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Focus goes back to the link that asked to leave (Radix does it a tick
    // after the dialog unmounts); typing before that would race it.
    await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Users');
    expect(page.url().endsWith('/guilds/new'), 'left the form after Cancel: ' + page.url());
    expect((await page.getByLabel(/^Name/).inputValue()) === 'Unsaved guild', 'the typed name is gone');
    // Typing past 120 characters keeps the same field and the caret in it
    // (it used to turn into a textarea mid-typing).
    const name = page.getByLabel(/^Name/);
    await name.click();
    await name.press('End');
    await name.pressSequentially('x'.repeat(110));
    expect(await name.evaluate((el) => el.tagName === 'INPUT' && document.activeElement === el), 'the Name field changed or lost focus while typing');
    expect((await name.inputValue()).length === 'Unsaved guild'.length + 110, 'characters typed into Name were lost');
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('dialog', { name: 'Leave without saving?' }).getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
  });

}
// ---- end of ui-data steps ----

// ---- 64-bit ids: Steam accounts past 2^53, on SQLite, PostgreSQL and MariaDB ----
// The demo's steam_accounts are keyed 76561198000000000…003, each the
// friend of the next: a double rounds all four to …000, so a panel that
// parses them as numbers shows four rows of one id, links each to row
// "zero" and writes the wrong one.
const steamIds = [0n, 1n, 2n, 3n].map((i) => String(76561198000000000n + i));
const steamNames = ['zero', 'first', 'second', 'third'];

// safetySteps: the panel's safety nets, as the admin. A session that ends
// under a form signs in again in a dialog and the save goes through; a
// sign-in page reached after one says why; a ban and a delete are undone
// from their toasts, each undo in the audit log as its own action.
async function safetySteps(base, consoleErrors) {
  const apiJSON = apiReader(base);
  // endSessions ends every session of the admin, as "Sign out everywhere"
  // in another browser would.
  // The refused requests of a session that ended (and of a wrong
  // password) are the browser's console errors, expected: taken off the
  // list the console step checks.
  const only401 = (before) => expectedErrors(consoleErrors, before, 401);
  const endSessions = async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(base + '/admin/login');
    const login = await p.request.post(base + '/admin-api/auth/login', { data: admin, headers: { Origin: base } });
    expect(login.ok(), 'the other browser cannot sign in: ' + login.status());
    const out = await p.request.post(base + '/admin-api/auth/logout-everywhere', { headers: { Origin: base } });
    expect(out.ok(), 'sign out everywhere: ' + out.status());
    await other.close();
  };

  await step('a session that ends under a form: Save opens a sign-in dialog, the header says signed out, and the save goes through after signing in', async () => {
    const before = consoleErrors.length;
    const guilds = await apiJSON('/guilds?_sort=id&_order=desc&_end=1');
    const g = guilds[0];
    await page.goto(`${base}/admin/guilds/${g.id}/edit`);
    const name = page.getByLabel(/^Name/);
    await name.waitFor();
    await name.fill(g.name + ' (kept)');
    await endSessions();
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await dialog.waitFor();
    // The dialog hides the page from assistive technology: the header is
    // found by its element.
    await page.locator('header.header').getByTestId('signed-out').waitFor();
    expect((await page.locator('header.header').getByText(admin.email).count()) === 0, 'the header still shows the operator signed in');
    expect((await dialog.getByLabel('Email').inputValue()) === admin.email, 'the dialog does not offer the email it knows');
    await shotEveryLook('40-session-ended');
    // A wrong password is said in the dialog; the form behind stays.
    await dialog.getByLabel('Password').fill('not the password');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('Password').fill(admin.password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Guilds / ${g.name} (kept)` }).waitFor();
    await page.getByRole('banner').getByText(admin.email).waitFor();
    const saved = await apiJSON(`/guilds/${g.id}`);
    expect(saved.name === g.name + ' (kept)', 'the save did not go through: ' + JSON.stringify(saved));
    only401(before);
  });

  await step('a session that ended: "Go to the sign-in page" says why there, and comes back after it', async () => {
    const before = consoleErrors.length;
    await page.goto(base + '/admin/guilds');
    await page.locator('tbody tr a.row-link').first().waitFor();
    await endSessions();
    await page.locator('thead').getByRole('button', { name: 'Name' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await dialog.getByRole('button', { name: 'Go to the sign-in page' }).click();
    await page.getByRole('status').getByText('Your session ended — sign in again.').waitFor();
    await shot('41-signin-session-ended');
    await signIn(admin.email, admin.password);
    await page.getByRole('heading', { name: 'Guilds' }).waitFor();
    expect(/\/admin\/guilds\?/.test(page.url()), 'not back on the list: ' + page.url());
    only401(before);
  });

  await step('a ban from a row menu names the player and is undone from its toast: unbanned, audited as an unban', async () => {
    await page.goto(base + '/admin/users?_q=player12@example.com');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    const row = page.locator('tbody tr').first();
    await row.getByRole('button', { name: /^Actions for row / }).click();
    await page.getByRole('menuitem', { name: 'Ban…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban Player 12' });
    await dialog.getByLabel(/Reason/).fill('e2e: undo me');
    await dialog.getByRole('radio', { name: '1 day' }).check();
    await dialog.getByRole('button', { name: 'Ban Player 12' }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: 'Player 12 banned' });
    await toast.waitFor();
    await row.locator('.badge-banned').waitFor();
    await shot('42-ban-undo-toast');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('Player 12 unbanned').waitFor();
    await row.locator('.badge-banned').waitFor({ state: 'detached' });
    const [user] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player12@example.com' }));
    expect(user.ban == null, 'Player 12 is still banned: ' + JSON.stringify(user.ban));
    const [entry] = await apiJSON('/adminAudit?action=user.unban&_sort=id&_order=desc&_end=1');
    expect(entry && entry.target_id === String(user.id), 'the undo is not audited as an unban: ' + JSON.stringify(entry));
  });

  await step('a bulk ban is undone from its toast: only those it banned are unbanned', async () => {
    await page.goto(base + '/admin/users?_q=player1');
    await page.locator('tbody tr').nth(3).waitFor();
    // Player 13 is banned already: the undo leaves that ban alone.
    const [p13] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player13@example.com' }));
    const pre = await page.request.post(`${base}/admin-api/users/${p13.id}/ban`, { data: { reason: 'e2e: earlier ban', until: new Date(Date.now() + 86_400_000).toISOString() }, headers: { Origin: base } });
    expect(pre.ok(), 'the earlier ban: ' + pre.status() + ' ' + (await pre.text()));
    await page.reload();
    for (const n of ['13', '14', '15']) await page.locator('tbody tr', { hasText: `player${n}@example.com` }).getByRole('checkbox').check();
    await page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Ban…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban 3 users' });
    await dialog.getByLabel(/Reason/).fill('e2e: bulk undo');
    await dialog.getByRole('radio', { name: '1 hour' }).check();
    await dialog.getByRole('button', { name: 'Ban 3 users' }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: '2 players banned, 1 already banned' });
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('2 players unbanned').waitFor();
    const banned = async (n) => (await apiJSON('/users?' + new URLSearchParams({ _q: `player${n}@example.com` })))[0].ban;
    expect((await banned('14')) == null && (await banned('15')) == null, 'the bulk undo left a ban');
    expect((await banned('13'))?.reason === 'e2e: earlier ban', 'the undo lifted the earlier ban of Player 13');
  });
}

// conflictSteps: a save never undoes what the operator did not see.
// Two admins edit one player; the second's save is refused, shows what the first changed, and goes through once re-applied.
// A JSON column the game writes while the form is open is saved as a merge
// patch of the operator's key, and both keys are kept.
async function conflictSteps(base, consoleErrors) {
  const apiJSON = apiReader(base);
  // The browser logs each refused save (409): expected, and taken off the
  // list the console step checks.
  const only409 = (before) => expect(expectedErrors(consoleErrors, before, 409).length > 0, 'the refused save is not in the console');
  const [player] = await apiJSON('/users?' + new URLSearchParams({ email: 'player26@example.com' }));
  const conflictDialog = () => page.getByRole('dialog', { name: 'This row changed while you were editing' });

  await step('two operators edit one player: the second save shows what the first changed, is re-applied and keeps both', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const first = await other.newPage();
      first.setDefaultTimeout(10_000);
      const firstErrors = [];
      collectErrors(first, firstErrors);
      await first.goto(base + '/admin/login');
      await first.getByLabel('Email').fill(admin.email);
      await first.getByLabel('Password').fill(admin.password);
      await first.getByRole('button', { name: 'Sign in' }).click();
      await first.getByRole('heading', { name: 'Dashboard' }).waitFor();
      // Both open the player's form.
      for (const p of [first, page]) {
        await p.goto(`${base}/admin/users/${player.id}/edit`);
        await p.getByLabel(/^Display Name/).waitFor();
      }
      // The first renames the player and saves.
      await first.getByLabel(/^Display Name/).fill('Player 26 the Bold');
      await first.getByRole('button', { name: 'Save' }).click();
      await first.getByRole('heading', { name: 'Users / Player 26 the Bold' }).waitFor();
      expect(firstErrors.length === 0, 'console errors of the first operator: ' + firstErrors.join(' | '));
      // The second changes the email and saves: refused, nothing written,
      // and told what changed under them.
      const before = consoleErrors.length;
      await page.getByLabel(/^Email/).fill('player26.b@example.com');
      await page.getByRole('button', { name: 'Save' }).click();
      const dialog = conflictDialog();
      await dialog.waitFor();
      const fields = dialog.locator('.conflict-field');
      expect((await fields.count()) === 1, 'the conflict names other fields than the display name: ' + (await fields.allInnerTexts()).join(' | '));
      const renamed = fields.filter({ hasText: 'Display Name' });
      for (const [term, value] of [['When you opened it', 'Player 26'], ['Now', 'Player 26 the Bold'], ['Your change', 'none']]) {
        const said = (await renamed.locator('div', { has: page.getByText(term, { exact: true }) }).locator('dd').innerText()).trim();
        expect(said === value, `${term}: ${said}, want ${value}`);
      }
      await dialog.getByText('Your changes to Email: nobody else changed it.').waitFor();
      const unsaved = await apiJSON(`/users/${player.id}`);
      expect(unsaved.email === 'player26@example.com', 'the refused save wrote the email: ' + unsaved.email);
      await shotEveryLook('45-edit-conflict');
      // Escape keeps the form and its edits; the page says the row changed,
      // and Save (or the note's button) shows the changes again.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('alert').getByText('This row changed since you opened it: nothing was saved.').waitFor();
      expect((await page.getByLabel(/^Email/).inputValue()) === 'player26.b@example.com', 'Escape lost the edit');
      await page.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor();
      // By keyboard: focus starts on Re-apply, which Enter presses.
      await waitFocus(dialog.getByRole('button', { name: 'Re-apply my changes' }), 'focus does not start on Re-apply my changes');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('status').getByText(/^Your changes are re-applied to the row as it is now/).waitFor();
      expect((await page.getByLabel(/^Display Name/).inputValue()) === 'Player 26 the Bold', 'the re-applied form lost the first rename');
      expect((await page.getByLabel(/^Email/).inputValue()) === 'player26.b@example.com', 'the re-applied form lost the email');
      await shot('45b-edit-conflict-reapplied');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Users / Player 26 the Bold' }).waitFor();
      const saved = await apiJSON(`/users/${player.id}`);
      expect(saved.email === 'player26.b@example.com' && saved.display_name === 'Player 26 the Bold', 'the row does not hold both changes: ' + JSON.stringify(saved));
      only409(before);
    } finally {
      await other.close();
    }
  });

  await step('a JSON column the game writes under the form: the save is a merge patch of the key changed, and keeps both', async () => {
    const key = Buffer.from(JSON.stringify([player.id, 'main'])).toString('base64url');
    const loaded = await apiJSON(`/cloudSaves/${key}`);
    await page.goto(`${base}/admin/cloudSaves/${key}/edit`);
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    // The game writes its own key meanwhile (through the API, as a game's
    // tool would: a merge patch, no If-Match).
    const game = await page.request.patch(`${base}/admin-api/cloudSaves/${key}`, {
      headers: { 'Content-Type': 'application/merge-patch+json', Origin: base },
      data: JSON.stringify({ data: { coins: 777777 } }),
    });
    expect(game.ok(), 'the game write: ' + game.status() + ' ' + (await game.text()));
    const level = loaded.data.level + 1;
    const sent = [];
    const onPatch = (r) => r.method() === 'PATCH' && sent.push({ type: r.headers()['content-type'], ifMatch: r.headers()['if-match'], body: r.postData() });
    page.on('request', onPatch);
    try {
      const before = consoleErrors.length;
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type(JSON.stringify({ ...loaded.data, level }));
      await page.getByRole('button', { name: 'Save' }).click();
      const dialog = conflictDialog();
      const data = dialog.locator('.conflict-field', { hasText: 'Data' });
      await data.getByText(`coins: ${loaded.data.coins} → 777777`).waitFor();
      await data.getByText(`level: ${loaded.data.level} → ${level}`).waitFor();
      await shot('46-json-conflict');
      await dialog.getByRole('button', { name: 'Re-apply my changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: /^Cloud Saves \/ Player 26 the Bold · main/ }).waitFor();
      const saved = await apiJSON(`/cloudSaves/${key}`);
      expect(saved.data.coins === 777777 && saved.data.level === level && saved.data.skin === loaded.data.skin, 'the document does not hold both keys: ' + JSON.stringify(saved.data));
      expect(sent.length === 2, `${sent.length} PATCHes sent`);
      for (const s of sent) {
        expect(s.type === 'application/merge-patch+json', 'the save is not a merge patch: ' + s.type);
        expect(s.body === JSON.stringify({ data: { level } }), 'the merge patch holds more than the key changed: ' + s.body);
        expect(/^"[^"]+"$/.test(s.ifMatch ?? ''), 'no If-Match: ' + s.ifMatch);
      }
      expect(sent[0].ifMatch !== sent[1].ifMatch, 'the re-applied save sent the stale version');
      only409(before);
    } finally {
      page.off('request', onPatch);
    }
    // History says the document's changes place by place.
    await page.getByRole('tab', { name: 'History' }).click();
    const changes = page.locator('.history-entry').first().getByRole('table', { name: 'Changes' });
    const row = changes.locator('tr', { has: page.locator('code', { hasText: /^level$/ }) });
    await row.getByRole('cell', { name: String(level), exact: true }).waitFor();
    await shot('46b-json-history');
  });
}

// reportsSteps: the reports queue as a mod works it, in the mod's
// browser; the admin (adminAPI, signed in through the API) holds a claim.
async function reportsSteps(base, modErrors) {
  const adminCtx = await browser.newContext();
  const adminAPI = adminCtx.request;
  const login = await adminAPI.post(base + '/admin-api/auth/login', { data: admin, headers: { Origin: base } });
  expect(login.ok(), 'the admin cannot sign in: ' + login.status());
  const apiJSON = apiReader(base);
  const [p44] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player44@example.com' }));
  const row = (n) => page.locator('[data-report-row]', { hasText: n });

  await step('reports: a claim an admin holds is refused with their name, and the mod is offered nothing on it', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base + '/admin/reports');
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
    for (const n of ['Player 07', 'Player 12', 'Player 31', 'Player 44']) await row(n).waitFor();
    // The admin claims Player 44 while the mod's queue still says "Not claimed".
    await row('Player 44').getByText('Not claimed').waitFor();
    const claimed = await adminAPI.post(`${base}/admin-api/_reports/${p44.id}/claim`, { data: {}, headers: { Origin: base } });
    expect(claimed.ok(), 'the admin\'s claim: ' + claimed.status() + ' ' + (await claimed.text()));
    const before = modErrors.length;
    await page.getByRole('button', { name: 'Claim the reports about Player 44' }).click();
    await page.getByText(/^Not claimed: .+ has been working on this player's reports since/).waitFor();
    await row('Player 44').getByText(/^Claimed by /).waitFor();
    expect((await row('Player 44').innerText()).includes(admin.email), 'the holder is not named: ' + (await row('Player 44').innerText()));
    expect((await row('Player 44').getByRole('button').count()) === 0, 'a mod is offered a button on a claim an admin holds');
    await shot('reports-00-claimed-by-admin-1440');
    // The refused claim is the console's one expected error.
    const extra = modErrors.splice(before);
    expect(extra.every((e) => e.includes('status of 409')), 'console errors: ' + extra.join(' | '));
    // The admin dismisses it: the queue is the three the mod works.
    const done = await adminAPI.post(`${base}/admin-api/_reports/${p44.id}/resolve`, { data: { outcome: 'dismiss' }, headers: { Origin: base } });
    expect(done.ok(), 'the admin\'s dismissal: ' + done.status());
  });

  // The seed files reports about Players 07 (cheating, 3), 12 (abuse, 2)
  // and 31 (offensive name, 1): worked from the queue by the mod, one per
  // outcome.
  await step('reports: a mod works three reported players from the queue (keyboard only for one), at 1440 and 390 px, light and dark', async () => {
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    const before = await theme();
    const useTheme = async (t) => {
      if ((await theme()) !== t) await page.getByRole('button', { name: `Use the ${t} theme` }).click();
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, t);
    };
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base + '/admin/reports');
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
    await useTheme('light');
    for (const n of ['Player 07', 'Player 12', 'Player 31']) await row(n).waitFor();
    expect((await row('Player 07').innerText()).includes('Cheating (3)'), 'Player 07\'s categories: ' + (await row('Player 07').innerText()));
    await page.getByRole('navigation').getByRole('link', { name: /^Reports/ }).waitFor();
    await shot('reports-01-queue-1440-light');

    // Player 07, keyboard only: j to the first player, Tab to Claim, then Resolve → Dismiss → Confirm.
    await page.evaluate(() => (document.activeElement instanceof HTMLElement) && document.activeElement.blur());
    await page.keyboard.press('j');
    await waitFocus(page.getByRole('link', { name: 'Reports about Player 07' }), 'j does not focus the first player (Player 07)');
    await page.keyboard.press('Tab');
    await waitFocus(page.getByRole('button', { name: 'Claim the reports about Player 07' }), 'Tab from the player does not reach Claim');
    await page.keyboard.press('Enter');
    await page.getByText('You are working on the reports about Player 07').waitFor();
    await row('Player 07').getByText('Claimed by you').waitFor();
    const resolve07 = page.getByRole('button', { name: 'Resolve the reports about Player 07' });
    await resolve07.focus();
    await page.keyboard.press('Enter');
    const d07 = page.getByRole('dialog', { name: 'Resolve the reports about Player 07' });
    await waitFocus(d07.getByRole('radio', { name: 'Dismiss' }), 'the resolve dialog does not open on its first outcome');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await waitFocus(d07.getByLabel(/^Note/), 'Tab from the outcome does not reach the note');
    await page.keyboard.type('e2e: no cheating found');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await waitFocus(d07.getByRole('button', { name: 'Confirm' }), 'Tab does not reach Confirm');
    await shot('reports-02-dismiss-dialog-1440-light');
    await page.keyboard.press('Enter');
    await page.getByText('Reports about Player 07 dismissed; 3 reports closed').waitFor();
    await row('Player 07').waitFor({ state: 'detached' });

    // Player 12, dark: claim and warn; the warning is a note on the player.
    await useTheme('dark');
    await page.getByRole('button', { name: 'Claim the reports about Player 12' }).click();
    await row('Player 12').getByText('Claimed by you').waitFor();
    await page.getByRole('button', { name: 'Resolve the reports about Player 12' }).click();
    const d12 = page.getByRole('dialog', { name: 'Resolve the reports about Player 12' });
    await d12.getByRole('radio', { name: 'Warn' }).check();
    await d12.getByRole('button', { name: 'Confirm' }).click();
    await d12.getByRole('alert').getByText(/Write the warning/).waitFor();
    await d12.getByLabel(/^Warning/).fill('e2e: mind your language in chat');
    await shot('reports-03-warn-dialog-1440-dark');
    await d12.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Player 12 warned; 2 reports closed').waitFor();
    await row('Player 12').waitFor({ state: 'detached' });
    const [p12] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player12@example.com' }));
    const notes = await apiJSON('/userNotes?' + new URLSearchParams({ user_id: String(p12.id) }));
    expect(notes.some((n) => n.body === 'e2e: mind your language in chat'), 'the warning is no note on Player 12: ' + JSON.stringify(notes));

    // Player 31, at 390 px: claim and ban for 7 days with the ban form.
    await page.setViewportSize({ width: 390, height: 844 });
    // The queue turns into cards, and the sidebar into a drawer, when
    // React sees the phone's width: wait for both, or the wider window's
    // layout is what gets measured.
    await page.locator('li.data-card[data-report-row]', { hasText: 'Player 31' }).waitFor();
    await page.getByRole('button', { name: 'Open the menu' }).waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide <= 390, `the queue is ${wide}px wide at 390 px`);
    await shot('reports-04-queue-390-dark');
    await useTheme('light'); // the header's toggle, before a dialog makes the page behind it inert
    await page.getByRole('button', { name: 'Claim the reports about Player 31' }).click();
    await row('Player 31').getByText('Claimed by you').waitFor();
    await page.getByRole('button', { name: 'Resolve the reports about Player 31' }).click();
    const d31 = page.getByRole('dialog', { name: 'Resolve the reports about Player 31' });
    await d31.getByRole('radio', { name: 'Ban' }).check();
    await d31.getByLabel(/Reason/).fill('e2e: offensive name');
    await d31.getByRole('radio', { name: '7 days' }).check();
    await shot('reports-05-ban-dialog-390-light');
    await d31.getByRole('button', { name: 'Ban Player 31' }).click();
    await page.getByText('Player 31 banned for 7 days; 1 report closed').waitFor();
    await page.getByText('No open reports.').waitFor();
    await shot('reports-06-queue-empty-390-light');

    // The player's page: Banned, and the report in its Reports tab.
    const [p31] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player31@example.com' }));
    expect(p31.ban != null, 'Player 31 is not banned');
    await page.goto(base + '/admin/users/' + p31.id + '?tab=_reports');
    await page.getByTestId('ban-state').getByText('Banned').waitFor();
    await page.locator('.report-item', { hasText: 'Offensive name' }).getByText('banned by').waitFor();
    expect((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'the user page scrolls sideways at 390 px');
    await shot('reports-07-user-tab-390-light');

    // The resolved view lists the three, and the dashboard has no open report.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base + '/admin/reports?status=resolved');
    for (const n of ['Player 07', 'Player 12', 'Player 31', 'Player 44']) await row(n).waitFor();
    await page.goto(base + '/admin/');
    await page.getByRole('article', { name: 'Open reports' }).getByText('No open reports.').waitFor();
    await useTheme(before ?? 'light');
    await page.setViewportSize({ width: 1280, height: 860 });
  });
  await adminCtx.close();
}

// steamRows reads GET steam_accounts as the server wrote it, without
// JSON.parse (which rounds): [id, friend_id, persona_name] per row.
// gameTableSteps: the demo's soft-delete table (matches), its view
// (map_stats) and its keyless log (chat_log), against the real server.
async function gameTableSteps(base) {
  // wide and phone take a screenshot at 1440 and 390 px.
  const both = async (name) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await shot(name + '-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(name + '-390');
    await audit();
    await page.setViewportSize({ width: 1280, height: 860 });
  };
  // The row's link is on its label; its id is the link's last segment.
  const liveIds = async () => page.locator('tbody tr a.row-link').evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href').split('/').pop())));

  await step('matches (soft delete): Delete marks the row deleted, the Deleted view shows it, its page offers Restore, Restore brings it back', async () => {
    await page.goto(base + '/admin/matches');
    await page.getByRole('heading', { name: 'Matches' }).waitFor();
    await page.locator('tbody tr a.row-link').first().waitFor();
    expect((await countSettles(page.locator('tbody tr'))) === 7, 'the list shows the voided match, or misses one');
    const deletedToggle = page.getByRole('button', { name: 'Deleted' });
    expect((await deletedToggle.getAttribute('aria-pressed')) === 'false', 'the Deleted view is on');
    await both('50-matches');
    // Delete match 3 from its row menu: marked deleted, not gone for good.
    await page.getByRole('button', { name: 'Actions for row 3' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    const text = await dialog.innerText();
    expect(!/for good/.test(text) && /restore/i.test(text), 'the soft delete reads: ' + text);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForFunction(() => ![...document.querySelectorAll('tbody tr a.row-link')].some((a) => a.getAttribute('href').endsWith('/matches/3')));
    expect(!(await liveIds()).includes('3') && (await countSettles(page.locator('tbody tr'))) === 6, 'match 3 is still listed');
    // The Deleted view: the seeded voided match and match 3.
    await deletedToggle.click();
    await page.waitForURL(/_deleted=only/);
    await page.locator('tbody tr a.row-link[href$="/matches/3"]').waitFor();
    const deleted = (await liveIds()).sort();
    expect(JSON.stringify(deleted) === '["3","8"]', 'the Deleted view lists ' + deleted.join(', '));
    // It says when each was deleted, and offers no second delete.
    await page.locator('thead th', { hasText: 'Deleted At' }).waitFor();
    expect((await page.getByRole('checkbox').count()) === 0, 'the Deleted view selects rows to delete again');
    await both('51-matches-deleted');
    // Its page: deleted, Restore, no Edit.
    await page.locator('tbody tr a.row-link[href$="/matches/3"]').click();
    await page.getByText('This row is deleted').waitFor();
    expect((await page.getByRole('link', { name: 'Edit', exact: true }).count()) === 0, 'a deleted match offers Edit');
    await both('52-match-deleted');
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await page.getByText('This row is deleted').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Edit', exact: true }).waitFor();
    await page.goto(base + '/admin/matches');
    await page.locator('tbody tr a.row-link[href$="/matches/3"]').waitFor();
    expect((await countSettles(page.locator('tbody tr'))) === 7, 'match 3 is not back in the list');
    const r = await page.request.get(`${base}/admin-api/matches/3`);
    expect(r.ok() && (await r.json()).deleted_at === null, 'match 3 is still deleted');
  });

  await step('map_stats (a view): Read-only, no Create, Edit, Delete or checkboxes; rows and a CSV link', async () => {
    await page.goto(base + '/admin/map_stats');
    await page.getByRole('heading', { name: /Map stats/ }).waitFor();
    await page.locator('.badge', { hasText: 'Read-only' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Dust Bowl' }).waitFor();
    expect((await countSettles(page.locator('tbody tr'))) === 3, 'map_stats does not list the 3 maps');
    expect((await page.getByRole('link', { name: 'Create' }).count()) === 0, 'a view offers Create');
    expect((await page.getByRole('checkbox').count()) === 0, 'a view has selection checkboxes');
    const menus = page.getByRole('button', { name: /^Actions for row / });
    if ((await menus.count()) > 0) {
      await menus.first().click();
      const items = (await page.getByRole('menu').getByRole('menuitem').allInnerTexts()).map((t) => t.trim());
      expect(!items.includes('Edit') && !items.includes('Delete'), 'a view row offers ' + items.join(', '));
      await page.keyboard.press('Escape');
    }
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await (await page.request.get(new URL(href, base).toString())).text();
    expect(csv.includes('Dust Bowl') && csv.includes('Sky Temple'), 'the view\'s CSV:\n' + csv);
    await both('53-map-stats');
    await page.locator('tbody tr a.row-link').first().click();
    await page.getByRole('heading').filter({ hasText: /Dust Bowl|Sky Temple|Frozen Lake/ }).first().waitFor();
    expect((await page.getByRole('link', { name: 'Edit', exact: true }).count()) === 0, 'a view\'s row offers Edit');
    expect((await page.getByRole('button', { name: 'Delete', exact: true }).count()) === 0, 'a view\'s row offers Delete');
  });

  await step('chat_log (no primary key): rows without links, sorted by a header, its CSV has the seeded lines', async () => {
    await page.goto(base + '/admin/chat_log');
    await page.getByRole('heading', { name: /Chat log/ }).waitFor();
    await page.locator('.badge', { hasText: 'Read-only' }).waitFor();
    await page.locator('tbody tr', { hasText: 'see you tomorrow' }).waitFor();
    expect((await countSettles(page.locator('tbody tr'))) === 12, 'chat_log does not list its 12 lines');
    expect((await page.locator('tbody a.row-link').count()) === 0, 'a keyless row links a page');
    expect((await page.getByRole('checkbox').count()) === 0, 'a keyless table has selection checkboxes');
    expect((await page.getByRole('link', { name: 'Create' }).count()) === 0, 'a keyless table offers Create');
    // The player is named, and links to their page.
    await page.locator('tbody tr', { hasText: 'see you tomorrow' }).getByRole('link', { name: /^Player \d+$/ }).waitFor();
    await page.getByRole('button', { name: 'Line' }).click();
    await page.waitForURL(/_sort=line&_order=asc/);
    await page.locator('tbody tr').first().filter({ hasText: 'Iron Wolves recruiting' }).waitFor();
    await page.getByRole('button', { name: 'Line' }).click();
    await page.waitForURL(/_sort=line&_order=desc/);
    await page.locator('tbody tr').first().filter({ hasText: 'who has the coin goal?' }).waitFor();
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const res = await page.request.get(new URL(href, base).toString());
    const csv = await res.text();
    const rows = csv.trim().split(/\r?\n/);
    expect(res.ok() && rows.length === 13 && csv.includes('how do I join a guild?') && rows[1].includes('who has the coin goal?'), 'the chat log CSV:\n' + csv);
    await both('54-chat-log');
    // The player's page lists their lines in a Chat log tab.
    await page.locator('tbody tr', { hasText: 'see you tomorrow' }).getByRole('link', { name: /^Player \d+$/ }).click();
    await page.getByRole('tab', { name: /Chat log/i }).click();
    await page.getByRole('tabpanel').locator('tbody tr', { hasText: 'see you tomorrow' }).waitFor();
    expect((await page.getByRole('tabpanel').locator('tbody a.row-link').count()) === 0, 'a keyless row links a page from the tab');
    await both('55-player-chat-tab');
  });
}

async function steamRows(base) {
  const r = await page.request.get(base + '/admin-api/steam_accounts?_sort=id&_order=asc');
  expect(r.ok(), `GET steam_accounts: ${r.status()}`);
  const text = await r.text();
  return [...text.matchAll(/"friend_id":(\d+|null),"id":(\d+),"linked_at":"[^"]*","persona_name":"([^"]*)"/g)].map((m) => [m[2], m[1], m[3]]);
}

async function steamSteps(base, db, errors, { zones = false } = {}) {
  await step(`${db}: 64-bit ids: list links, cells, friends and selections are exact`, async () => {
    await page.goto(base + '/admin/steam_accounts');
    await page.getByRole('heading', { name: 'Steam accounts' }).waitFor();
    await page.locator('tbody tr', { hasText: 'third' }).waitFor();
    const hrefs = await page.locator('tbody tr a.row-link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    const want = steamIds.map((id) => `/admin/steam_accounts/${id}`);
    expect(hrefs.join() === want.join(), 'row links: ' + hrefs.join(', '));
    for (const [i, id] of steamIds.entries()) {
      const tr = page.locator('tbody tr', { hasText: steamNames[i] });
      expect((await tr.locator('td', { hasText: new RegExp('^' + id + '$') }).count()) === 1, `row ${steamNames[i]} does not show its exact id ${id}`);
      const friend = steamIds[(i + 1) % 4];
      const link = tr.locator(`a[href="/admin/steam_accounts/${friend}"]`);
      expect((await link.count()) === 1 && (await link.innerText()).trim() === friend, `row ${steamNames[i]}: no exact link to its friend ${friend}`);
      // A selection holds the exact id (bulk delete and actions send it).
      await tr.getByRole('checkbox', { name: `Select row ${id}`, exact: true }).waitFor();
    }
    await shot(`40-steam-list-${db}`);
  });

  await step(`${db}: 64-bit ids: a row's link opens that row, with its exact id and friend`, async () => {
    await page.locator('tbody tr', { hasText: 'second' }).locator('a.row-link').click();
    await page.waitForURL(`**/admin/steam_accounts/${steamIds[2]}`);
    const fields = page.locator('dl.fields');
    await fields.getByText('second', { exact: true }).waitFor();
    const text = await fields.innerText();
    expect(text.includes(steamIds[2]) && text.includes(steamIds[3]) && !text.includes(steamIds[0]), 'row page fields:\n' + text);
    const friend = fields.locator(`a[href="/admin/steam_accounts/${steamIds[3]}"]`);
    expect((await friend.count()) === 1, 'the friend is not linked to ' + steamIds[3]);
    await shot(`41-steam-row-${db}`);
  });

  await step(`${db}: 64-bit ids: an edit writes that row only and keeps its 64-bit friend`, async () => {
    const before = await steamRows(base);
    expect(before.length === 4, 'seeded rows: ' + JSON.stringify(before));
    await page.getByRole('link', { name: 'Edit' }).click();
    const name = page.getByLabel(/^Persona name/);
    await name.fill(`second on ${db}`);
    const patch = page.waitForRequest((r) => r.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    const req = await patch;
    expect(req.url().endsWith('/admin-api/steam_accounts/' + steamIds[2]), 'PATCH went to ' + req.url());
    expect(req.postData() === JSON.stringify({ persona_name: `second on ${db}` }), 'PATCH body: ' + req.postData());
    await page.waitForURL(`**/admin/steam_accounts/${steamIds[2]}`);
    await page.locator('dl.fields').getByText(`second on ${db}`, { exact: true }).waitFor();
    const after = await steamRows(base);
    const want = before.map(([id, friend, n]) => [id, friend, id === steamIds[2] ? `second on ${db}` : n]);
    expect(JSON.stringify(after) === JSON.stringify(want), `after the edit:\n${JSON.stringify(after)}\nwant\n${JSON.stringify(want)}`);
    expect(JSON.stringify(after.map((r) => r.slice(0, 2))) === JSON.stringify(steamIds.map((id, i) => [id, steamIds[(i + 1) % 4]])), 'ids or friends moved: ' + JSON.stringify(after));
  });

  await step(`${db}: 64-bit ids: a filter and the CSV link find the one row, exact`, async () => {
    await page.goto(base + '/admin/steam_accounts');
    await page.locator('tbody tr', { hasText: 'third' }).waitFor();
    await page.getByLabel('Filter column').selectOption({ label: 'Steam id' });
    await page.getByLabel('Filter operator').selectOption({ label: '=' });
    await page.getByLabel('Filter value').fill(steamIds[1]);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.waitForURL(`**/admin/steam_accounts?id_eq=${steamIds[1]}`);
    expect((await countSettles(page.locator('tbody tr'))) === 1, 'id_eq did not find one row');
    expect((await page.locator('tbody tr a.row-link').getAttribute('href')).endsWith('/' + steamIds[1]), 'the filtered row is not ' + steamIds[1]);
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(new URL(href, base).searchParams.get('id_eq') === steamIds[1], 'CSV link: ' + href);
    const csv = await (await page.request.get(new URL(href, base).toString())).text();
    const lines = csv.trim().split(/\r?\n/);
    expect(lines.length === 2 && lines[1].includes(steamIds[1]) && lines[1].includes(steamIds[2]) && lines[1].includes('first') && !csv.includes(steamIds[0]), 'CSV:\n' + csv);
  });

  await step(`${db}: 64-bit ids: a new row's typed id is sent and stored digit for digit`, async () => {
    const id = '76561198000000009';
    await page.goto(base + '/admin/steam_accounts/new');
    await page.getByLabel(/^Steam id/).fill(id);
    await page.getByLabel(/^Persona name/).fill('ninth');
    const post = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/admin-api/steam_accounts'));
    await page.getByRole('button', { name: 'Create' }).click();
    expect(((await post).postData() ?? '').includes(`"id":${id}`), 'POST body: ' + (await post).postData());
    await page.waitForURL(`**/admin/steam_accounts/${id}`);
    const rows = await steamRows(base);
    expect(rows.some(([rid, , n]) => rid === id && n === 'ninth'), 'stored: ' + JSON.stringify(rows));
  });

  if (!zones) return;
  await step(`${db}: time filters: a day picker, read in the operator's zone (_tz) in the list and the CSV`, async () => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Tokyo' });
    try {
      await page.goto(base + '/admin/steam_accounts');
      await page.locator('tbody tr', { hasText: 'third' }).waitFor();
      const cell = page.locator('tbody tr', { hasText: 'third' }).locator('time');
      expect(((await cell.getAttribute('title')) ?? '').includes('Asia/Tokyo'), 'a time cell does not name the zone it is shown in');
      await page.getByLabel('Filter column').selectOption({ label: 'Linked At' });
      await page.getByLabel('Filter operator').selectOption({ label: '≥' });
      const value = page.getByLabel('Filter value');
      expect((await value.getAttribute('type')) === 'date', 'a time filter is not a date picker');
      await page.getByLabel('Filter precision').selectOption({ label: 'day and time' });
      expect((await value.getAttribute('type')) === 'datetime-local', 'day and time is not a datetime picker');
      await page.getByLabel('Filter precision').selectOption({ label: 'day' });
      await value.fill('2025-03-15');
      const listed = page.waitForResponse((r) => r.url().includes('/admin-api/steam_accounts?') && r.url().includes('linked_at_gte'));
      await page.getByRole('button', { name: 'Add filter' }).click();
      const res = await listed;
      const q = new URL(res.url()).searchParams;
      expect(q.get('_tz') === 'Asia/Tokyo' && q.get('linked_at_gte') === '2025-03-15', 'list request: ' + res.url());
      await page.locator('.chip', { hasText: '(Asia/Tokyo)' }).waitFor();
      const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
      const c = new URL(href, base).searchParams;
      expect(c.get('_tz') === 'Asia/Tokyo' && c.get('linked_at_gte') === '2025-03-15', 'CSV link: ' + href);
      expect(res.status() === 200, `list answered ${res.status()}`);
      // "third" was linked at 23:30 UTC on 14 March, 08:30 on the 15th in
      // Tokyo: in. "second" at 14:00 UTC, 23:00 on the 14th there: out
      // (midnight UTC would have kept them the other way round).
      await page.locator('tbody tr', { hasText: 'third' }).waitFor();
      expect((await countSettles(page.locator('tbody tr'))) === 4, 'the day filter in Tokyo should keep 4 of the 5 accounts');
      expect((await page.locator('tbody tr', { hasText: 'second' }).count()) === 0, '"second", linked on the 14th in Tokyo, is listed');
      await shot(`42-time-filter-${db}`);
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(`43-time-filter-${db}-390`);
      await page.setViewportSize({ width: 1280, height: 860 });
    } finally {
      await cdp.send('Emulation.setTimezoneOverride', { timezoneId: '' }).catch(() => {});
      await cdp.detach().catch(() => {});
    }
  });
}

// dbSteps walks the 64-bit table again on another database: a fresh
// database (PostgreSQL's through ADMIN_PG_DSN; MariaDB's made by the demo
// itself, on ADMIN_MYSQL_URL or root at 127.0.0.1:3306), a second demo
// server on it, its first admin made through the setup link.
async function dbSteps(label) {
  const name = 'gameadmin_e2e_' + crypto.randomBytes(4).toString('hex');
  let dsn;
  const run_ = { label, log: '' };
  if (label === 'PostgreSQL') {
    const adminDsn = process.env.ADMIN_PG_DSN || 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable';
    const u = new URL(adminDsn);
    u.pathname = '/' + name;
    dsn = u.toString();
    run_.create = () => run('psql', [adminDsn, '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE "${name}"`]);
    run_.drop = () => run('psql', [adminDsn, '-c', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`]);
  } else {
    const u = new URL(process.env.ADMIN_MYSQL_URL || 'mysql://root@127.0.0.1:3306/');
    u.pathname = '/' + name;
    dsn = u.toString();
    run_.create = async () => {}; // the demo creates its database
    const args = ['-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username || 'root')];
    if (u.password) args.push('-p' + decodeURIComponent(u.password));
    run_.drop = () => run('mariadb', [...args, '-e', `DROP DATABASE IF EXISTS \`${name}\``]);
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await step(`${label}: a fresh database and a demo server on it`, async () => {
    await run_.create();
    dbRuns.push(run_);
    run_.server = spawnServer(port, dsn, (d) => (run_.log += d));
    await waitForServer(base, 240_000, run_.server, () => run_.log);
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await step(`${label}: the first admin through the setup link`, async () => {
    const m = run_.log.match(/link="?(\/admin\/setup\?token=[A-Za-z0-9%]+)/);
    expect(m, 'the server logged no setup link:\n' + run_.log);
    await page.goto(base + m[1]);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel(/^Password/).fill(admin.password);
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });
  const errors = [];
  collectErrors(page, errors);
  await steamSteps(base, label, errors);
  await step(`${label}: the 64-bit list on a phone`, async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(base + '/admin/steam_accounts');
    await page.getByText(steamIds[3]).first().waitFor();
    await shot(`44-steam-list-${label}-390`);
    expect(errors.length === 0, 'console errors:\n  ' + errors.join('\n  '));
  });
  await context.close();
}

// stopDatabases stops the servers of the other databases' runs and
// drops their databases.
async function stopDatabases() {
  await Promise.all(
    dbRuns.map(async (r) => {
      await stopGroup(r.server);
      await r.drop().catch((e) => console.log(`dropping the ${r.label} e2e database: ` + e.message));
    }),
  );
}

let exitCode = 0;
try {
  await main();
} catch {
  exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  await Promise.all([stopGroup(bots), stopGroup(server), stopDatabases()]);
}
if (failed > 0 || passed === 0) exitCode = 1;
console.log(`axe-core audited ${audited.size} page states`);
console.log(`screenshots: ${shots}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);

// germanSteps walk the panel in German: first as a browser that asks for
// German (its Accept-Language and navigator.languages) finds it, before
// any choice; then as the admin chooses it on the account page, where it
// is kept in the account (a reload keeps it, /auth/me says it), through
// the main pages at 390 and 1440 px, light and dark (axe on each), none
// wider than the screen; then back to the browser's language.
async function germanSteps(base, consoleErrors) {
  await step('German: a browser that asks for German signs in in German', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const p = await ctx.newPage();
    try {
      await p.goto(base + '/admin/login');
      await p.getByRole('button', { name: de('Sign in') }).waitFor();
      expect((await p.evaluate(() => document.documentElement.lang)) === 'de', 'the sign-in page is not marked lang="de"');
      await p.screenshot({ path: path.join(shots, 'de-sign-in-390.png'), fullPage: true });
      await p.getByLabel(de('Email or username')).fill(admin.email);
      await p.getByLabel(de('Password')).fill(admin.password);
      await p.getByRole('button', { name: de('Sign in') }).click();
      await p.getByRole('button', { name: de('Open the menu') }).waitFor();
    } finally {
      await ctx.close();
    }
  });

  await step('German: chosen on the account page, kept in the account', async () => {
    await page.goto(base + '/admin/account');
    await page.getByLabel('Language of the panel').selectOption('de');
    await page.waitForFunction(() => document.documentElement.lang === 'de');
    await page.locator('main h1', { hasText: de('Your account') }).waitFor();
    const me = await page.evaluate(() => fetch('/admin-api/auth/me').then((r) => r.json()));
    expect(me.locale === 'de', `/auth/me says locale ${JSON.stringify(me.locale)}, want "de"`);
    await page.reload();
    await page.locator('main h1', { hasText: de('Your account') }).waitFor();
    await shotEveryLook('de-account');
  });

  const pages = [
    ['dashboard', '/admin/'],
    ['guilds', '/admin/guilds'],
    ['users', '/admin/users'],
    ['reports', '/admin/reports'],
    ['rooms', '/admin/rooms'],
    ['audit', '/admin/adminAudit'],
  ];
  for (const [name, p] of pages) {
    await step(`German: ${name} at 390 and 1440 px, light and dark, nothing wider than the screen`, async () => {
      await page.goto(base + p);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        // A list turns its table into cards after the resize: what counts
        // is the page once it has (3 s at most).
        const fits = await page
          .waitForFunction(() => document.documentElement.scrollWidth - innerWidth <= 1, null, { timeout: 3000 })
          .then(() => true, () => false);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        expect(fits, `${p} at ${width} px is ${wide} px wider than the screen`);
      }
      await shotEveryLook(`de-${name}`);
    });
  }

  await germanWalkSteps(base, consoleErrors);

  await step("German: back to the browser's language", async () => {
    await page.goto(base + '/admin/account');
    await page.getByLabel(de('Language of the panel')).selectOption('');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    const me = await page.evaluate(() => fetch('/admin-api/auth/me').then((r) => r.json()));
    expect(me.locale === '', `/auth/me says locale ${JSON.stringify(me.locale)}, want ""`);
    await page.locator('main h1', { hasText: 'Your account' }).waitFor();
  });
}

// phoneRoundFourSteps: what an operator found on a phone, in small words
// and with a keyboard. At 390 px every room's
// Created and every client's session show, the room's JSON is cut at no
// edge and its state box is reached by Tab; the audit filters' placeholders
// show whole; the audit chart's legend at rest says a step with data; a
// failed sign-in names its account, a revert the change it undid; and the
// claim link on Reports stands apart from its words. Each page is audited
// in both themes at both widths; the page is left at 1280 px, light.
async function phoneRoundFourSteps(base) {
  const apiJSON = apiReader(base);
  const rowsOf = (r) => (Array.isArray(r) ? r : r.data ?? r.rows ?? []);
  const phone = () => page.setViewportSize({ width: 390, height: 844 });
  const wide = () => page.setViewportSize({ width: 1280, height: 860 });
  const entryURL = (id) => base + '/admin/adminAudit/' + encodeURIComponent(String(id));

  await step('phone: bot players join an arena again (the first ones left long ago)', async () => {
    await stopGroup(bots);
    botLog = '';
    startBots(base, 3);
    await botsJoined(2, 20_000);
  });

  try {
    await step('phone (390 px): each room is a card with its name, its id beside it, its clients and when it was created', async () => {
      await page.goto(base + '/admin/rooms');
      await page.getByRole('heading', { name: 'Live rooms' }).waitFor();
      await phone();
      try {
        const cards = page.locator('.room-cards > li');
        await cards.first().waitFor();
        const rooms = await apiJSON('/rooms');
        expect(rooms.length >= 1, 'no live room');
        for (const r of rooms) {
          const card = cards.filter({ hasText: r.roomId });
          await card.first().waitFor();
          const text = await card.first().innerText();
          expect(/Created\s*\S/.test(text), `the card of ${r.roomId} does not say when it was created: ${text}`);
          if (r.name) await card.first().getByRole('link', { name: r.name, exact: true }).waitFor(); // named, the id beside
        }
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width <= 390, `the rooms page is ${width}px wide at 390px`);
        for (const box of await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right))) expect(box <= 390, 'a room card runs off the screen: ' + box);
      } finally {
        await wide();
      }
      // At 1280 px the table names each room the same way: name, then id.
      await page.locator('tbody tr').first().waitFor();
      await shotEveryLook('50-rooms');
    });

    await step('phone (390 px): a room shows each client\'s session, its JSON is cut at no edge, and Tab reaches its state box', async () => {
      const room = (await apiJSON('/rooms')).find((r) => r.clients > 0);
      expect(room, 'no room with clients');
      await page.goto(base + '/admin/rooms/' + encodeURIComponent(room.roomId));
      await page.getByRole('heading', { name: new RegExp('^Live rooms / ' + (room.name || room.roomId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).waitFor();
      await phone();
      try {
        const table = page.getByRole('table', { name: 'Clients' });
        await table.locator('tbody tr .client-facts').first().waitFor();
        const view = await apiJSON('/rooms/' + encodeURIComponent(room.roomId));
        // Clients come and go: those still in the room when the table is read.
        await page.waitForFunction((n) => document.querySelectorAll('table[aria-label="Clients"] tbody tr').length === n, view.clientList.length, { timeout: 5000 }).catch(() => {});
        const shown = await table.innerText();
        expect(/Session/.test(shown), 'the clients do not say Session at 390px: ' + shown);
        expect(view.clientList.some((c) => shown.includes(c.sessionId)), 'no client\'s session shows at 390px: ' + shown);
        const sessions = await table.locator('.client-facts dd.mono').evaluateAll((els) => els.map((e) => ({ right: e.getBoundingClientRect().right, sw: e.scrollWidth, cw: e.clientWidth })));
        for (const s of sessions) expect(s.right <= 390 && s.sw <= s.cw, 'a session is cut at 390px: ' + JSON.stringify(s));
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width <= 390, `the room page is ${width}px wide at 390px`);
        // The JSON boxes: wrapped, within the screen; any that scrolls is focusable.
        for (const name of ['State', 'Metadata']) {
          const box = page.getByRole('region', { name, exact: true });
          await box.waitFor();
          const m = await box.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, sh: el.scrollHeight, ch: el.clientHeight, right: el.getBoundingClientRect().right, tab: el.tabIndex }));
          expect(m.right <= 390, `the ${name} box runs off the screen: ${JSON.stringify(m)}`);
          expect(m.sw <= m.cw || m.tab === 0, `the ${name} box is cut on the right and cannot be scrolled by keyboard: ${JSON.stringify(m)}`);
          expect(m.sh <= m.ch || m.tab === 0, `the ${name} box scrolls but Tab cannot reach it: ${JSON.stringify(m)}`);
          expect(m.sw <= m.cw, `the ${name} box is cut on the right at 390px: ${JSON.stringify(m)}`);
        }
        // Tab from the last client reaches the state box, its focus ring drawn.
        await table.getByRole('link').last().focus();
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const el = document.activeElement;
          const cs = el ? getComputedStyle(el) : null;
          return { state: !!el?.matches('pre.state[role=region]'), outline: cs ? `${cs.outlineStyle} ${cs.outlineWidth}` : '' };
        });
        expect(focused.state, 'Tab from the last client does not reach the state box');
        expect(!/^none|\s0px$/.test(focused.outline), 'the focused state box shows no focus ring: ' + focused.outline);
        await shot('51-room-phone-state-focused');
      } finally {
        await wide();
      }
      await shotEveryLook('51-room');
    });
  } finally {
    await stopGroup(bots);
  }

  await step('the audit filters\' placeholders show whole at 1280 and 390 px', async () => {
    await page.goto(base + '/admin/adminAudit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.locator('#audit-action').waitFor();
    const measure = () => page.locator('.audit-filters input[placeholder]').evaluateAll((els) => els.filter((e) => e.offsetParent && !e.value).map((e) => {
      const cs = getComputedStyle(e);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      return { placeholder: e.placeholder, need: Math.ceil(ctx.measureText(e.placeholder).width), room, sw: e.scrollWidth, cw: e.clientWidth, right: e.getBoundingClientRect().right };
    }));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      try {
        const inputs = await measure();
        expect(inputs.some((f) => f.placeholder === 'Choose a resource, or type an id'), `at ${width}px the target filter's placeholder is not there: ` + JSON.stringify(inputs));
        for (const f of inputs) {
          expect(f.need <= f.room && f.sw <= f.cw && f.right <= width, `at ${width}px the placeholder "${f.placeholder}" is cut: ${JSON.stringify(f)}`);
        }
      } finally {
        await wide();
      }
    }
    await shotEveryLook('52-audit-filters');
  });

  await step('the audit chart\'s legend at rest says the latest step with data, not an empty last one', async () => {
    await page.goto(base + '/admin/');
    const chart = page.getByRole('article', { name: 'Audit log by action' });
    await chart.locator('.u-legend').waitFor();
    await page.mouse.move(1, 1); // at rest: no step hovered
    const values = await chart.locator('.u-legend .u-series .u-value').allInnerTexts();
    expect(values.length >= 2, 'the legend shows no values: ' + JSON.stringify(values));
    expect(values.slice(1).some((v) => /[1-9]/.test(v)), 'the legend at rest says only empty values: ' + JSON.stringify(values));
  });

  await step('a failed sign-in entry names the account it was for, not as its operator', async () => {
    const failed = async () => rowsOf(await apiJSON('/adminAudit?action=auth.login_failed&_sort=id&_order=desc&_end=20')).find((e) => e.payload?.email === admin.email);
    let entry = await failed();
    if (!entry) {
      await wrongPassword(base, 'not the password, on a phone');
      for (const end = Date.now() + 5000; !entry && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) entry = await failed();
    }
    expect(entry, 'no failed sign-in of the admin in the audit log');
    await page.goto(entryURL(entry.id));
    const said = page.locator('.audit-sentence', { hasText: 'Sign-in failed' });
    await said.waitFor();
    const text = (await said.innerText()).trim();
    expect(text === 'Sign-in failed for ' + admin.email, 'the failed sign-in reads: ' + text);
    if (entry.target_id) await said.getByRole('link', { name: admin.email }).waitFor();
    await shotEveryLook('53-audit-sign-in-failed');
  });

  await step('a revert\'s entry says the change it undid by its time, linked, not "entry 44"', async () => {
    const entry = rowsOf(await apiJSON('/adminAudit?action=revert&_sort=id&_order=desc&_end=20')).find((e) => e.payload?.auditId !== undefined);
    expect(entry?.payload?.auditId !== undefined, 'no revert in the audit log: ' + JSON.stringify(entry));
    await page.goto(entryURL(entry.id));
    const said = page.locator('.audit-sentence', { hasText: 'Reverted the change of ' });
    await said.waitFor();
    const href = await said.getByRole('link').getAttribute('href');
    expect(href.endsWith('/adminAudit/' + entry.payload.auditId), 'the revert links ' + href);
    const payload = await page.locator('.field-wide').innerText();
    expect(!/\bentry \d+|Audit entry/i.test(payload), 'the revert still says an entry number: ' + payload);
  });

  await step('a ban without a reason has no "Reason" line in its entry', async () => {
    const entry = rowsOf(await apiJSON('/adminAudit?action=user.ban&_sort=id&_order=desc&_end=50')).find((e) => e.payload && e.payload.reason === '');
    if (!entry) return; // every ban so far had a reason
    await page.goto(entryURL(entry.id));
    const payload = page.locator('.field-wide');
    await payload.locator('dl.kv').first().waitFor();
    expect((await payload.locator('dt', { hasText: /^Reason$/ }).count()) === 0, 'an empty reason is still a line: ' + (await payload.innerText()));
  });

  await step('Reports: the "Claimed by" link stands apart from its words (underlined), on the queue and a player\'s reports', async () => {
    await page.goto(base + '/admin/reports');
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
    // The queue, or its empty state, once it has loaded.
    const any = await page.locator('.report-actions').first().waitFor({ timeout: 5000 }).then(() => true, () => false);
    const link = page.locator('.report-claim a').first();
    if (!any || (await link.count()) === 0) return; // no report claimed by another operator is open now
    const deco = await link.evaluate((a) => getComputedStyle(a).textDecorationLine);
    expect(deco.includes('underline'), 'the claim link is not underlined: ' + deco);
    await shotEveryLook('54-reports-claimed');
    await page.locator('tr', { has: page.locator('.report-claim a') }).first().locator('a.report-details').click();
    await page.locator('.report-claim').first().waitFor();
    await shotEveryLook('54-report-claimed');
  });
}

// claimSteps: a claim on a player's reports as a mod and the admin work
// it at once: the mod (player01, in their own browser) claims Player 07
// and reads the evidence their scope leaves out said plainly; the admin
// (this page) reads it as a link, takes the claim over after a
// confirmation naming the mod, and releases it; the mod's open page
// follows both without a reload; the mod claims and releases. Player 07
// is left unclaimed, as the reports steps later expect.
async function claimSteps(base) {
  const apiJSON = apiReader(base);
  const [p07] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player07@example.com' }));
  const [p01] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player01@example.com' }));
  const url = base + '/admin/reports/' + encodeURIComponent(String(p07.id));
  const main = page;
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const mod = await ctx.newPage();
  mod.setDefaultTimeout(10_000);
  const errors = [];
  collectErrors(mod, errors);
  // claimWords are a page's claim and its buttons; the claim line is
  // what it says.
  const claimWords = (p) => p.locator('.report-actions').first();
  const claimLine = (p) => p.locator('.report-claim').first();
  try {
    await step('reports: a mod claims a player and reads evidence outside their scope said plainly', async () => {
      await mod.goto(base + '/admin/login');
      await mod.getByLabel('Email or username').fill('player01');
      await mod.getByLabel('Password').fill('player-password');
      await mod.getByRole('button', { name: 'Sign in' }).click();
      await mod.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await mod.goto(url);
      await mod.getByRole('heading', { name: 'Reports about Player 07' }).waitFor();
      await claimWords(mod).getByText('Not claimed').waitFor();
      await mod.getByRole('button', { name: 'Claim the reports about Player 07' }).click();
      await mod.getByText('You are working on the reports about Player 07').waitFor();
      await claimWords(mod).getByText('Claimed by you').waitFor();
      // The claim's time follows its "since".
      expect(/^Claimed by you since \S.+\d/.test((await claimLine(mod).innerText()).trim()), 'the claim line: ' + (await claimLine(mod).innerText()));
      // The matches table is outside the mod's scopes: no "Row 1", no link.
      const evidence = mod.locator('.report-evidence');
      await evidence.first().waitFor();
      const words = await evidence.allInnerTexts();
      expect(words.length === 2 && words.every((w) => /^Evidence: row \S+ of a section outside your scope$/.test(w.trim())), 'the mod reads the evidence as: ' + words.join(' | '));
      expect((await evidence.getByRole('link').count()) === 0, 'the mod is offered a link to evidence they may not open');
      page = mod;
      try {
        await shotEveryLook('reports-10-mod-claimed-evidence-out-of-scope');
      } finally {
        page = main;
      }
    });

    await step('reports: the admin opens the evidence, takes the claim over after a confirmation naming the mod, and the mod\'s page follows', async () => {
      await page.goto(url);
      await page.getByRole('heading', { name: 'Reports about Player 07' }).waitFor();
      // The admin may open the match the evidence names.
      const link = page.locator('.report-evidence').first().getByRole('link');
      await link.waitFor();
      expect(((await link.getAttribute('href')) ?? '').includes('/matches/'), 'the evidence link: ' + (await link.getAttribute('href')));
      await claimWords(page).getByText(/^Claimed by Player 01/).waitFor();
      await page.getByRole('button', { name: 'Take over the reports about Player 07' }).click();
      const dialog = page.getByRole('dialog', { name: 'Take over the reports about Player 07?' });
      await dialog.getByText('Player 01 is working on them.', { exact: false }).waitFor();
      await shot('reports-11-take-over-confirm');
      // Cancel takes nothing.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      await claimWords(page).getByText(/^Claimed by Player 01/).waitFor();
      await page.getByRole('button', { name: 'Take over the reports about Player 07' }).click();
      await dialog.getByRole('button', { name: 'Take over' }).click();
      await page.getByText('You took over the reports about Player 07 from Player 01').waitFor();
      await claimWords(page).getByText('Claimed by you').waitFor();
      await shot('reports-12-taken-over');
      // The mod's page, left open, says who holds it now (its next read,
      // within 12 s) and offers the mod nothing on it.
      await claimWords(mod).getByText(/^Claimed by /).filter({ hasText: admin.email }).waitFor({ timeout: 20_000 });
      expect((await claimWords(mod).getByRole('button').count()) === 0, 'the mod is offered a button on the admin\'s claim');
    });

    await step('reports: the admin releases the claim; the mod sees it free, claims and releases it themselves', async () => {
      await page.getByRole('button', { name: 'Release the reports about Player 07' }).click();
      await page.getByText('You released the reports about Player 07').waitFor();
      await claimWords(page).getByText('Not claimed').waitFor();
      // The mod's page, left open, follows within its next read.
      await claimWords(mod).getByText('Not claimed').waitFor({ timeout: 20_000 });
      await mod.getByRole('button', { name: 'Claim the reports about Player 07' }).click();
      await claimWords(mod).getByText('Claimed by you').waitFor();
      await mod.getByRole('button', { name: 'Release the reports about Player 07' }).click();
      await mod.getByText('You released the reports about Player 07').waitFor();
      await claimWords(mod).getByText('Not claimed').waitFor();
      const claim = (await apiJSON('/_reports?' + new URLSearchParams({ player: String(p07.id) }))).claim;
      expect(claim === null, 'Player 07 is still claimed: ' + JSON.stringify(claim));
      // The audit log has the take-over and both releases.
      const rows = await apiJSON('/adminAudit?' + new URLSearchParams({ resource: 'users', target_id: String(p07.id), _sort: 'id', _order: 'desc', _end: '10' }));
      const actions = rows.map((e) => e.action);
      expect(actions.filter((a) => a === 'report.release').length >= 2 && rows.some((e) => e.action === 'report.claim' && JSON.stringify(e.payload ?? '').includes(String(p01.id))), 'the audit log of Player 07: ' + JSON.stringify(rows.map((e) => [e.action, e.payload])));
      expect(errors.length === 0, 'console errors in the mod\'s browser: ' + errors.join(' | '));
    });
  } finally {
    page = main;
    await ctx.close();
  }
}

// trailSteps: the audit trail names people and rows, never their ids: a
// filed report's player, reporter and category, a deleted guild as it
// was, an erase in words, and a kicked player's History lists the kick.
// Leaves the admin signed in on the audit log, as it found the page.
async function trailSteps(base) {
  const apiJSON = apiReader(base);
  const uuidAnywhere = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

  await step('trail: a filed report\'s entry names the player, the reporter and the category, not their ids', async () => {
    const [entry] = await apiJSON('/adminAudit?action=report.file&_sort=id&_order=desc&_end=1');
    expect(entry?._labels?.reporterId && entry._labels.category, 'the report.file entry has no names: ' + JSON.stringify(entry));
    await page.goto(base + '/admin/adminAudit/' + entry.id);
    const payload = page.locator('dl.kv').last();
    await payload.locator('dd', { hasText: entry._labels.reporterId }).waitFor();
    await payload.locator('dd', { hasText: entry._labels.playerId }).waitFor();
    await payload.locator('dd', { hasText: entry._labels.category }).waitFor();
    const text = await payload.innerText();
    const values = await payload.locator('dd').allInnerTexts();
    expect(!uuidAnywhere.test(text) && !values.some((v) => v.trim() === entry.payload.category), 'the report entry still says ids: ' + text);
    await shot('trail-01-report-filed');
    // The list's cell says the category by its label.
    await page.goto(base + '/admin/adminAudit?action=report.file');
    await page.locator('tbody tr .payload-cell', { hasText: entry._labels.category }).first().waitFor();
  });

  await step('trail: a deleted guild is named as it was in the audit log', async () => {
    const [owner] = await apiJSON('/users?_end=1');
    const name = 'Trail Guild ' + Date.now().toString(36);
    const made = await page.request.post(base + '/admin-api/guilds', { data: { name, owner_id: owner.id, recruiting: false, treasury: '0' }, headers: { Origin: base } });
    expect(made.ok(), 'the guild: ' + made.status() + ' ' + (await made.text()));
    const { id } = await made.json();
    const gone = await page.request.delete(base + '/admin-api/guilds/' + id, { headers: { Origin: base } });
    expect(gone.ok(), 'the delete: ' + gone.status());
    await page.goto(base + '/admin/adminAudit?' + new URLSearchParams({ action: 'delete', resource: 'guilds' }));
    const row = page.locator('tbody tr', { hasText: name }).first();
    await row.waitFor();
    expect((await row.innerText()).includes('Guilds'), 'the entry does not say the resource by its label: ' + (await row.innerText()));
    await shot('trail-02-deleted-guild');
  });

  await step('trail: a composite row\'s entry names its resource and its player, not its key', async () => {
    await page.goto(base + '/admin/adminAudit?resource=cloudSaves');
    const row = page.locator('tbody tr').first();
    // An earlier step may have renamed the player ("Player 26 the Bold").
    await row.locator('a', { hasText: /^Player \d+.* · main$/ }).waitFor();
    const text = await row.innerText();
    expect(text.includes('Cloud Saves') && !text.includes('cloudSaves'), 'the cloud save entry reads: ' + text);
  });

  await step('trail: a deleted guild\'s entry shows the guild as it was, its owner by name', async () => {
    const [entry] = await apiJSON('/adminAudit?action=delete&resource=guilds&_sort=id&_order=desc&_end=1');
    await page.goto(base + '/admin/adminAudit/' + entry.id);
    await page.locator('dt', { hasText: /^Owner/ }).first().waitFor();
    await page.locator('dd', { hasText: entry._labels['row.owner_id'] }).first().waitFor();
    const text = await page.locator('main').innerText();
    expect(!text.includes('owner_id') && !text.includes('"name"'), 'the deleted guild reads: ' + text);
    await shot('trail-02b-deleted-guild-entry');
  });

  await step('trail: an erase reads as its resources and counts in the audit list, never as JSON', async () => {
    await page.goto(base + '/admin/adminAudit?action=user.erase');
    const cell = page.locator('tbody tr .payload-cell').first();
    await cell.waitFor();
    const text = await cell.innerText();
    expect(text.includes('audit entries redacted') && !text.includes('relation') && !text.includes('[{'), 'the erase reads: ' + text);
  });

  await step('trail: a kicked player\'s History lists the kick', async () => {
    const [kick] = await apiJSON('/adminAudit?action=room.kick&_sort=id&_order=desc&_end=1');
    expect(kick?.payload?.userId, 'no kick entry: ' + JSON.stringify(kick));
    await page.goto(base + '/admin/users/' + encodeURIComponent(kick.payload.userId) + '?tab=_history');
    await page.locator('li', { hasText: 'Kicked' }).first().waitFor();
    await shot('trail-03-kick-in-history');
    await page.goto(base + '/admin/adminAudit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  });
}

// keysSteps: undo that scales (a bulk unban,
// an Undo toast that lasts and is reached from the keyboard), the
// palette's search ranking a name above an id, and the keyboard: "?"
// lists the keys, Enter on a row puts the focus on the row's heading,
// Back puts it on the row again and j goes on from there.
async function keysSteps(base) {
  const apiJSON = apiReader(base);
  const focusedRow = () => page.evaluate(() => document.activeElement?.closest('[data-row]')?.getAttribute('data-row') ?? document.activeElement?.tagName);

  await step('keys: 3 players banned in bulk are unbanned in bulk from the list (2 actions); the Undo toast lasts and Alt+T reaches it', async () => {
    await page.goto(base + '/admin/users?_q=player3');
    await page.locator('tbody tr', { hasText: 'player38@example.com' }).waitFor();
    const rows = ['36', '37', '38'].map((n) => page.locator('tbody tr', { hasText: `player${n}@example.com` }));
    for (const r of rows) await r.getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByRole('button', { name: 'Ban…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban 3 users' });
    await dialog.getByLabel(/^Reason/).fill('e2e: bulk unban');
    await dialog.getByRole('radio', { name: '1 day' }).check();
    await dialog.getByRole('button', { name: 'Ban 3 users' }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: /^3 players banned/ });
    await toast.getByRole('button', { name: 'Undo' }).waitFor();
    for (const r of rows) await r.locator('.badge-banned').waitFor();
    // Past the old 10 s, the Undo is still there; Alt+T takes the focus to it.
    await page.waitForTimeout(11_000);
    expect(await toast.getByRole('button', { name: 'Undo' }).isVisible(), 'the Undo toast of a bulk ban is gone after 11 s');
    await page.keyboard.press('Alt+t');
    await page.waitForFunction(() => !!document.activeElement?.closest('[data-sonner-toaster]'), null, { timeout: 2000 }).catch(() => {
      throw new Error('Alt+T did not take the focus to the toasts');
    });
    await page.locator('h1').first().click();
    // The bulk unban: the selection, then Unban and its one confirmation.
    for (const r of rows) await r.getByRole('checkbox').check();
    await bar.getByText('3 selected').waitFor();
    await bar.getByRole('button', { name: 'Unban', exact: true }).click();
    const ask = page.getByRole('dialog', { name: 'Unban 3 users?' });
    await shot('70-bulk-unban-confirm');
    await ask.getByRole('button', { name: 'Unban 3' }).click();
    await page.locator('[data-sonner-toast]', { hasText: /^3 players unbanned/ }).waitFor();
    for (const r of rows) await r.locator('.badge-banned').waitFor({ state: 'detached' });
    for (const n of ['36', '37', '38']) {
      const [u] = await apiJSON('/users?' + new URLSearchParams({ email: `player${n}@example.com` }));
      expect(u && u.ban == null, `player${n} is still banned: ` + JSON.stringify(u?.ban));
    }
    // Audited per player, as an unban is.
    const entries = await apiJSON('/adminAudit?action=user.unban&_sort=id&_order=desc&_end=3');
    expect(entries.length === 3 && new Set(entries.map((e) => String(e.target_id))).size === 3, 'the bulk unban\'s audit: ' + JSON.stringify(entries.map((e) => e.target_id)));
  });

  await step('keys: the palette finds "23" as Player 23 first, not the ids that hold 23', async () => {
    await page.goto(base + '/admin/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const input = page.locator('.palette [cmdk-input]');
    await page.keyboard.press('Control+k');
    await input.fill('23');
    const users = page.locator('.palette [cmdk-group]', { has: page.locator('[cmdk-group-heading]', { hasText: /^Users$/ }) });
    await users.locator('[cmdk-item]').first().waitFor();
    await page.locator('.palette [cmdk-loading]').waitFor({ state: 'detached' });
    const found = await users.locator('[cmdk-item]').allInnerTexts();
    expect(found[0]?.includes('Player 23'), 'the palette\'s users for "23": ' + found.join(' | '));
    expect(!found.some((t) => /Player 0[1-8]\b/.test(t)), 'the palette lists players by an id that holds 23: ' + found.join(' | '));
    await shot('71-palette-23');
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
  });

  await step('keys: "?" lists the keys (j/k, Ctrl K), Escape closes it and the focus returns', async () => {
    await page.goto(base + '/admin/users');
    await page.locator('tbody tr[data-row="2"]').waitFor();
    const row = page.locator('tbody tr[data-row="0"]');
    await row.focus();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    const text = await help.innerText();
    const keys = (await help.locator('kbd').allInnerTexts()).map((k) => k.trim());
    for (const k of ['Ctrl K', 'j', 'k', 'Enter', 'x', '/', 'Alt T', 'Esc', '?']) expect(keys.includes(k), `the help does not list ${k}: ${text}`);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await waitFocus(row, 'the focus did not return to the row after the help closed');
    // At both widths and themes (a phone's list is cards: opened from the page).
    await page.locator('h1').first().click();
    await page.keyboard.press('?');
    await shotEveryLook('72-shortcut-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // Not while typing: "?" in the search box is a question mark.
    const search = page.getByRole('searchbox').first();
    await search.focus();
    await page.keyboard.press('?');
    expect((await search.inputValue()) === '?' && (await help.count()) === 0, '"?" in the search box: ' + JSON.stringify(await search.inputValue()));
    await search.fill('');
  });

  await step('keys: Enter on a row puts the focus on its heading; Back puts it on the row again and j goes on', async () => {
    await page.goto(base + '/admin/users');
    await page.locator('tbody tr[data-row="3"]').waitFor();
    await page.locator('h1').first().click();
    for (const _ of [0, 1, 2]) await page.keyboard.press('j');
    expect((await focusedRow()) === '2', 'j j j focuses ' + (await focusedRow()));
    const href = await page.locator('tbody tr[data-row="2"] a.row-link').getAttribute('href');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === href);
    await page.waitForFunction(() => document.activeElement?.matches('main h1'), null, { timeout: 5000 }).catch(() => {});
    const where = await page.evaluate(() => document.activeElement?.tagName + ' ' + (document.activeElement?.textContent ?? ''));
    expect(where.startsWith('H1 '), 'after Enter the focus is on ' + where);
    await page.goBack();
    await page.locator('tbody tr[data-row="3"]').waitFor();
    await page.waitForFunction(() => document.activeElement?.matches('tbody tr[data-row="2"]'), null, { timeout: 5000 }).catch(() => {});
    expect((await focusedRow()) === '2', 'after Back the focus is on ' + (await focusedRow()));
    await page.keyboard.press('j');
    expect((await focusedRow()) === '3', 'j after Back focuses ' + (await focusedRow()));
  });
}

// germanWalkSteps: an operator's day, in German. The admin (German in
// the account) edits a guild (a name another guild has is refused in
// German beside the field) and reverts the edit from its History, bans
// a player from the list and undoes it from the toast, claims and
// releases a player's reports (by keyboard: the focus goes on to
// Resolve), locks and unlocks the arena, filters the
// audit log by an action typed in German, finds a player with the
// palette and opens the keys' help. On every screen no text of the panel
// is left in English: no text, label, title or placeholder is a text of
// the catalogs whose German differs, unless it is the game's own (its
// tables' labels, as the catalog sends them).
async function germanWalkSteps(base, consoleErrors) {
  const apiJSON = apiReader(base);
  const catalog = await apiJSON('/');
  const game = new Set(catalog.filter((r) => !r.builtin).flatMap((r) => [r.label, ...r.columns.map((c) => c.label), ...r.relations.map((x) => x.label), ...r.actions.map((a) => a.label)]));
  // A lower-case word is a key (an action's, an operation's), shown as such.
  const english = Object.keys(deCatalog).filter((k) => !/\{\{|<|_(one|other)$/.test(k) && !/^[a-z_.]+$/.test(k) && deCatalog[k] !== k && !game.has(k));
  const noEnglish = async (where) => {
    const left = await page.evaluate((keys) => {
      const set = new Set(keys);
      const out = new Set();
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const t = n.textContent.trim();
        if (set.has(t) && n.parentElement?.closest('[aria-hidden="true"]') == null) out.add(t);
      }
      for (const el of document.body.querySelectorAll('[aria-label],[title],[placeholder]')) {
        for (const a of ['aria-label', 'title', 'placeholder']) {
          const t = (el.getAttribute(a) ?? '').trim();
          if (set.has(t)) out.add(`${t} (${a})`);
        }
      }
      return [...out];
    }, english);
    expect(left.length === 0, `${where} in German still says in English: ${left.join(' | ')}`);
  };

  await step('German walk: a guild edited, then reverted from its History, in German', async () => {
    const [g] = await apiJSON('/guilds?' + new URLSearchParams({ name: 'Crimson Tide' }));
    await page.goto(base + '/admin/guilds/' + g.id);
    await page.locator('main h1', { hasText: 'Crimson Tide' }).waitFor();
    await noEnglish('a guild');
    await page.getByRole('link', { name: de('Edit'), exact: true }).click();
    const name = page.getByLabel(/^Name/);
    // Another guild's name: the server's refusal, in German, at the field.
    const errorsBefore = consoleErrors.length;
    await name.fill('Frost Giants');
    await page.getByRole('button', { name: de('Save'), exact: true }).click();
    await page.getByText(de('Already taken: another row has this value'), { exact: false }).waitFor();
    // The browser logs the refused PATCH (409): expected.
    const refused = consoleErrors.splice(errorsBefore);
    expect(refused.every((e) => /status of 409/.test(e)), 'console errors of the refused save: ' + refused.join(' | '));
    expect((await name.getAttribute('aria-invalid')) === 'true', 'the name is not marked invalid');
    await noEnglish('the guild form with a refused name');
    await name.fill('Crimson Tide II');
    await page.getByRole('button', { name: de('Save'), exact: true }).click();
    await page.locator('main h1', { hasText: 'Crimson Tide II' }).waitFor();
    await page.getByRole('tab', { name: de('History') }).click();
    const edit = page.locator('.history-entry').filter({ hasText: de('Updated') }).first();
    await edit.getByRole('cell', { name: 'Crimson Tide II' }).waitFor();
    await noEnglish("the guild's History");
    await edit.getByRole('button', { name: de('Revert…') }).click();
    const dialog = page.getByRole('dialog', { name: de('Revert this change?') });
    await dialog.waitFor();
    await noEnglish('the revert dialog');
    await shot('de-walk-revert-1440');
    await dialog.getByRole('button', { name: de('Revert'), exact: true }).click();
    await page.locator('main h1', { hasText: /Crimson Tide$/ }).waitFor();
    const [back] = await apiJSON('/guilds?' + new URLSearchParams({ id: String(g.id) }));
    expect(back.name === 'Crimson Tide', 'the revert left the guild named ' + back.name);
  });

  await step('German walk: a player banned from the list for a day, undone from the toast', async () => {
    await page.goto(base + '/admin/users?_q=player18@example.com');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await noEnglish('the users list');
    const row = page.locator('tbody tr').first();
    await row.getByRole('button', { name: deRe('Actions for row {{id}}') }).click();
    await page.getByRole('menuitem', { name: de('Ban…') }).click();
    const dialog = page.getByRole('dialog', { name: deRe('Ban {{name}}', { name: 'Player 18' }) });
    await dialog.waitFor();
    await dialog.getByLabel(new RegExp(de('Reason'))).fill('e2e: auf Deutsch');
    await dialog.getByRole('radio', { name: /^1 Tag$/ }).check();
    await noEnglish('the ban dialog');
    await shot('de-walk-ban-1440');
    await dialog.getByRole('button', { name: deRe('Ban {{name}}', { name: 'Player 18' }) }).click();
    const toast = page.locator('[data-sonner-toast]', { hasText: 'Player 18' }).first();
    await toast.waitFor();
    await row.locator('.badge-banned').waitFor();
    await noEnglish("the ban's toast");
    await toast.getByRole('button', { name: de('Undo') }).click();
    await page.getByText(deRe('{{name}} unbanned', { name: 'Player 18' })).waitFor();
    await row.locator('.badge-banned').waitFor({ state: 'detached' });
    const [user] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player18@example.com' }));
    expect(user.ban == null, 'Player 18 is still banned: ' + JSON.stringify(user.ban));
  });

  await step("German walk: a player's reports claimed and released", async () => {
    await page.goto(base + '/admin/reports');
    await page.getByRole('button', { name: deRe('Claim the reports about {{name}}', { name: 'Player 44' }) }).waitFor();
    await noEnglish('the reports queue');
    const [p44] = await apiJSON('/users?' + new URLSearchParams({ _q: 'player44@example.com' }));
    await page.goto(base + '/admin/reports/' + encodeURIComponent(String(p44.id)));
    // By keyboard: after Claim the focus is on Resolve, the next step.
    await page.getByRole('button', { name: deRe('Claim the reports about {{name}}', { name: 'Player 44' }) }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.report-actions').first().getByText(de('Claimed by you')).waitFor();
    await waitFocus(page.getByRole('button', { name: deRe('Resolve the reports about {{name}}', { name: 'Player 44' }) }), 'after Claim the focus is not on Resolve');
    await noEnglish("a claimed player's reports");
    await shot('de-walk-claimed-1440');
    await page.getByRole('button', { name: deRe('Release the reports about {{name}}', { name: 'Player 44' }) }).click();
    await page.getByText(deRe('You released the reports about {{name}}', { name: 'Player 44' })).waitFor();
    await page.locator('.report-actions').first().getByText(de('Not claimed')).waitFor();
  });

  await step('German walk: the arena locked and unlocked', async () => {
    await page.goto(base + '/admin/rooms');
    const arena = page.locator('tbody tr', { has: page.getByRole('cell', { name: 'arena', exact: true }) });
    await arena.waitFor();
    await noEnglish('the rooms list');
    await arena.getByRole('link').click();
    await page.getByRole('button', { name: de('Lock'), exact: true }).click();
    await page.getByRole('button', { name: de('Unlock'), exact: true }).waitFor();
    await noEnglish('a locked room');
    await shot('de-walk-room-1440');
    await page.getByRole('button', { name: de('Unlock'), exact: true }).click();
    await page.getByRole('button', { name: de('Lock'), exact: true }).waitFor();
  });

  await step('German walk: the audit log filtered by an action typed in German; an entry opened', async () => {
    await page.goto(base + '/admin/adminAudit');
    await page.locator('tbody tr').first().waitFor();
    await noEnglish('the audit log');
    await page.getByLabel(de('Action'), { exact: true }).fill(de('Banned'));
    await page.keyboard.press('Enter');
    await page.waitForURL(/action=user\.ban/);
    // The ban's row, once the list is the filtered one (the undo's row,
    // "Unbanned", is not in it).
    const ban = page.locator('tbody tr', { hasText: 'Player 18', has: page.getByRole('cell', { name: de('Banned'), exact: true }) }).first();
    await ban.waitFor();
    await page.waitForFunction((word) => [...document.querySelectorAll('tbody tr')].every((tr) => tr.innerText.includes(word)), de('Banned'));
    await noEnglish('the filtered audit log');
    await ban.locator('td a').first().click();
    await page.locator('dd', { hasText: 'Player 18' }).first().waitFor();
    await page.locator('dd', { hasText: de('Banned') }).first().waitFor();
    await noEnglish('an audit entry');
    await shot('de-walk-audit-entry-1440');
  });

  await step('German walk: the palette finds a player; "?" lists the keys', async () => {
    await page.goto(base + '/admin/users');
    await page.locator('tbody tr[data-row="1"]').waitFor();
    const input = page.locator('.palette [cmdk-input]');
    await page.keyboard.press('Control+k');
    await input.fill('Player 18');
    await page.getByRole('option', { name: /Player 18/ }).first().waitFor();
    await noEnglish('the palette');
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
    await page.locator('main h1').first().click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: de('Keyboard shortcuts') });
    await help.waitFor();
    await noEnglish('the keys help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
  });

  await step('German walk: the dashboard, the account and every table, nothing left in English', async () => {
    for (const p of ['/admin/', '/admin/account', ...catalog.map((r) => '/admin/' + r.name)]) {
      await page.goto(base + p);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await noEnglish(p);
    }
  });
}

// wordsSteps: the audit log names its entries in words (not "Entry 85"),
// a failed sign-in's operator is unknown (the account tried is its
// target), a JSON value that does not parse says where in the operator's
// language, and the dashboard's built-in widgets say they are.
async function wordsSteps(base) {
  const apiJSON = apiReader(base);
  const failedOf = async (email) => (await apiJSON('/adminAudit?action=auth.login_failed&_sort=id&_order=desc&_end=20')).find((e) => e.payload?.email === email);

  await step('words: a failed sign-in\'s operator reads unknown, its account is the target, its entry is named in words', async () => {
    await wrongPassword(base, 'not the password, words');
    let entry;
    for (const end = Date.now() + 5000; !entry && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) entry = await failedOf(admin.email);
    expect(entry, 'no failed sign-in of the admin in the audit log');
    await page.goto(base + '/admin/adminAudit?action=auth.login_failed');
    const row = page.locator('tbody tr', { has: page.locator(`a.row-link[href$="/adminAudit/${entry.id}"]`) });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.some((c) => c.trim() === 'unknown (someone signing in)'), 'the failed sign-in\'s row: ' + cells.join(' | '));
    expect(cells.filter((c) => c.trim() === admin.email).length === 1, 'the account is not the target alone: ' + cells.join(' | '));
    await page.goto(base + '/admin/adminAudit/' + entry.id);
    await page.locator('main h1', { hasText: 'Sign-in failed for ' }).waitFor();
    const h1 = (await page.locator('main h1').first().innerText()).trim();
    expect(h1.includes('Sign-in failed for ' + admin.email + ' · ') && !/\/\s*\d+$/.test(h1), 'the entry\'s heading reads ' + h1);
    const operator = page.locator('.field', { has: page.locator('dt', { hasText: /^Operator$/ }) });
    expect((await operator.locator('dd').innerText()).trim() === 'unknown (someone signing in)', 'the entry\'s operator reads ' + (await operator.innerText()));
  });

  await step('words: a revert in a row\'s history names the change it undid by its time; at 390 px no audit card reads "Entry N"', async () => {
    const [owner] = await apiJSON('/users?_end=1');
    const name = 'E2E Words ' + (Date.now() % 100_000);
    const made = await page.request.post(base + '/admin-api/guilds', { data: { name, owner_id: owner.id, recruiting: false, treasury: '0' }, headers: { Origin: base } });
    expect(made.ok(), 'create the guild: ' + made.status());
    const g = await made.json();
    const changed = await page.request.patch(`${base}/admin-api/guilds/${g.id}`, { data: { recruiting: true }, headers: { Origin: base } });
    expect(changed.ok(), 'change the guild: ' + changed.status());
    const [update] = await apiJSON(`/adminAudit?action=update&resource=guilds&target_id=${g.id}&_sort=id&_order=desc&_end=1`);
    const reverted = await page.request.post(`${base}/admin-api/guilds/${g.id}/_revert`, { data: { auditId: update.id }, headers: { Origin: base } });
    expect(reverted.ok(), 'revert: ' + reverted.status());
    await page.goto(`${base}/admin/guilds/${g.id}?tab=_history`);
    const head = page.locator('.history-head', { hasText: 'Reverted the change of ' });
    await head.waitFor();
    const text = await head.innerText();
    expect(!/\bentry \d+/i.test(text) && text.includes('(Updated) by '), 'the revert\'s head reads ' + text);
    const href = await head.locator('a', { hasText: /\d/ }).first().getAttribute('href');
    expect(href.endsWith('/adminAudit/' + update.id), 'the revert links ' + href);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(base + '/admin/adminAudit');
      await page.locator('.data-card[data-row="3"]').waitFor();
      const titles = await page.locator('.data-card .card-title').allInnerTexts();
      expect(titles.every((t) => !/^Entry \d+$/.test(t.trim()) && / · .*\d/.test(t)), 'audit cards are titled ' + titles.slice(0, 4).join(' | '));
      expect(titles.some((t) => t.startsWith(`Reverted: ${name} · `)), 'no card names the revert: ' + titles.slice(0, 6).join(' | '));
      await shot('80-words-audit-cards-390');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  await step('words: JSON that does not parse says where, in English and in German, and CodeMirror speaks German', async () => {
    const typeBad = async (p) => {
      await p.goto(base + '/admin/configs/new');
      const editor = p.locator('.cm-content');
      await editor.waitFor();
      await editor.click();
      await p.keyboard.type('{"a": 1,\n"b": [1, 2');
    };
    await typeBad(page);
    await page.getByText(/^Not valid JSON: line 2, column \d+\.$/).waitFor();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'de-DE' });
    try {
      const login = await ctx.request.post(base + '/admin-api/auth/login', { data: { email: admin.email, password: admin.password }, headers: { Origin: base } });
      expect(login.ok(), 'the admin cannot sign in: ' + login.status());
      const p = await ctx.newPage();
      await typeBad(p);
      const said = new RegExp('^' + de('Not valid JSON: line {{line, number}}, column {{column, number}}.').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\\\{(line|column), number\\\}\\\}/g, '\\d+') + '$');
      await p.getByText(said).waitFor();
      // A deleted selection is announced in CodeMirror's words, in German.
      await p.keyboard.press('Control+a');
      await p.keyboard.press('Backspace');
      await p.locator('.cm-announced', { hasText: de('Selection deleted') }).waitFor({ state: 'attached' });
      await p.screenshot({ path: path.join(shots, '81-words-json-de.png'), fullPage: true });
    } finally {
      await ctx.close();
    }
  });

  await step('words: the dashboard\'s built-in widgets say so', async () => {
    const { widgets } = await apiJSON('/_dashboard');
    expect(widgets.length > 0 && widgets.every((w) => w.builtin === true), 'the demo\'s widgets: ' + JSON.stringify(widgets.map((w) => [w.id, w.builtin])));
  });
}
