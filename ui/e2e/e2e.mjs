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
    for (const c of [bots, server]) {
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

// onConsoleErrors collects a page's console errors and uncaught exceptions.
function collectErrors(p, into) {
  p.on('console', (m) => m.type() === 'error' && into.push(m.text()));
  p.on('pageerror', (e) => into.push(String(e)));
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

  await step('relation tabs label their foreign keys', async () => {
    const panel = page.getByRole('tabpanel');
    // Cloud Saves: user_id points back at this user, linked and labelled.
    await page.getByRole('tab', { name: /Cloud Saves/ }).click();
    await panel.getByRole('link', { name: 'Player 07', exact: true }).first().waitFor();
    // User Notes: the author is another user, labelled, not a UUID.
    await page.getByRole('tab', { name: /User Notes/ }).click();
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
    await page.getByRole('heading', { name: /Live rooms \/ arena-/ }).waitFor();
    await field('Clients').getByText('3 / 20').waitFor();
    await page.getByRole('table', { name: 'Clients' }).locator('tbody tr').nth(2).waitFor();
    await page.getByRole('table', { name: 'Clients' }).getByRole('link', { name: /^Player 0[123]$/ }).nth(2).waitFor(); // named, not ids
    await page.getByRole('region', { name: 'State' }).getByText('"coinGoal": 5').waitFor();
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

  await step('kick a client and see 2 clients', async () => {
    const rows = page.getByRole('table', { name: 'Clients' }).locator('tbody tr');
    await rows.first().getByRole('button', { name: 'Kick' }).click();
    const dialog = page.getByRole('dialog', { name: 'Kick this client?' });
    await dialog.waitFor();
    await shot('18-kick-confirm');
    await dialog.getByRole('button', { name: 'Kick' }).click();
    await page.getByText('Client kicked').waitFor();
    await field('Clients').getByText('2 / 20').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Clients"] tbody tr').length === 2);
  });

  await step('the audit log shows the room actions', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    for (const a of ['room.kick', 'room.lock', 'room.unlock', 'room.state.edit']) {
      await page.locator('tbody tr', { hasText: a }).first().waitFor();
    }
    await shot('19-audit-rooms');
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
    await signIn('player01@example.com', 'player-password');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Guilds' }).waitFor();
    await nav.getByRole('link', { name: 'Live rooms' }).waitFor();
    const links = (await nav.getByRole('link').allInnerTexts()).map((t) => t.trim());
    const want = ['Dashboard', 'Live rooms', 'Users', 'User Notes', 'Guilds'];
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
    await page.locator('tbody tr').first().locator('td').first().getByRole('link').click();
    await page.locator('dd', { hasText: 'player09@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Ban', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Revoke sessions' }).waitFor();
    await page.getByRole('tab', { name: /User Notes/ }).waitFor();
    const tabs = (await page.getByRole('tab').allInnerTexts()).map((t) => t.replace(/\d+$/, '').trim());
    expect(!tabs.some((t) => /Cloud Saves|Leaderboard|Analytics/.test(t)), 'a mod sees tabs of resources out of scope: ' + tabs.join(', '));
    expect((await page.getByRole('alert').count()) === 0, 'the user page shows an error: ' + (await page.getByRole('alert').allInnerTexts()).join(' '));
    await shot('21-mod-user');
  });

  await step('a mod visiting /admin/roles sees "not allowed"', async () => {
    await page.goto(base + '/admin/roles');
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect((await page.getByText('Loading…').count()) === 0, 'still loading');
    await page.getByRole('link', { name: 'Back to the dashboard' }).waitFor();
    await shot('22-mod-roles');
  });

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
    await signIn('player01@example.com', 'player-password');
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
}

let exitCode = 0;
try {
  await main();
} catch {
  exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  await Promise.all([stopGroup(bots), stopGroup(server)]);
}
if (failed > 0 || passed === 0) exitCode = 1;
console.log(`screenshots: ${shots}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
