// The pieces every browser test uses: the real server binary on a free
// port with a fresh SQLite file, practice bots from the real client binary,
// the solver (to know a right answer), headless Chromium, and screenshots.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
const bin = (name) => process.env[`KRYPTO_${name.toUpperCase().replace('-', '_')}_BIN`] ?? join(repo, 'target', 'debug', name);
export const SCREENSHOTS = join(repo, 'docs', 'screenshots');

/**
 * Runs krypto-server with `args`; resolves once it prints its join
 * addresses, with the `ws://localhost:PORT/ws` port it printed.
 */
async function spawnServer(args) {
  const child = spawn(bin('krypto-server'), args,
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: 'warn' } });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const port = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/ws:\/\/localhost:(\d+)\/ws/);
      if (m) ok(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`krypto-server exited (${code}): ${log}`)));
  });
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    /** SIGTERM, then waits until it has exited. */
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await new Promise((ok) => (child.exitCode !== null ? ok() : child.on('exit', ok)));
    },
  };
}

/** Starts krypto-server on 127.0.0.1, port chosen by the system. */
export async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'krypto-web-'));
  const database = `sqlite://${join(dir, 'krypto.db')}`;
  let server = await spawnServer(['--listen', '127.0.0.1:0', '--database', database]);
  const { port } = server;
  return {
    port,
    base: server.base,
    ws: server.ws,
    /** A graceful restart: SIGTERM, then the same port and database. */
    async restart() {
      await server.stop();
      server = await spawnServer(['--listen', `127.0.0.1:${port}`, '--database', database]);
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throwaway PostgreSQL cluster (the machine's PostgreSQL 15, run as the
 * `postgres` user when we are root), listening on a unix socket in a new
 * temporary directory; `url` is its `postgres` database.
 */
export async function startPostgres() {
  const bin = '/usr/lib/postgresql/15/bin';
  const dir = mkdtempSync(join(tmpdir(), 'krypto-web-pg-'));
  const root = process.getuid?.() === 0;
  const run = (cmd, args) => (root
    ? execFileSync('su', ['postgres', '-c', [cmd, ...args].map((a) => `'${a}'`).join(' ')])
    : execFileSync(cmd, args));
  if (root) execFileSync('chown', ['-R', 'postgres', dir]);
  run(`${bin}/initdb`, ['-D', `${dir}/data`, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-locale']);
  run(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-o', `-k ${dir} -c listen_addresses= -c fsync=off`,
    '-l', `${dir}/log`, '-w', 'start']);
  return {
    url: `postgres://postgres@localhost/postgres?host=${dir}`,
    async stop() {
      run(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A node of a cluster on `database` (a PostgreSQL URL), its public URL
 * being its own loopback address.
 */
export async function startNode(database) {
  const port = await new Promise((ok) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address();
      probe.close(() => ok(p));
    });
  });
  return spawnServer([
    '--listen', `127.0.0.1:${port}`, '--database', database,
    '--public-url', `ws://127.0.0.1:${port}/ws`,
  ]);
}

/** Starts `count` practice bots in room `code`; returns a stop function. */
export function startBots(server, code, { count = 1, skill = 'easy', pace = 100 } = {}) {
  const config = mkdtempSync(join(tmpdir(), 'krypto-bots-'));
  const child = spawn(bin('krypto'), [
    'bots', '--server', server.ws, '--room', code, '--count', String(count), '--skill', skill, '--pace', String(pace),
  ], { stdio: 'ignore', env: { ...process.env, KRYPTO_CONFIG_DIR: config } });
  return async () => {
    child.kill('SIGTERM');
    await new Promise((ok) => (child.exitCode !== null ? ok() : child.on('exit', ok)));
    rmSync(config, { recursive: true, force: true });
  };
}

/** One solution of the hand, as `krypto solve` prints it. */
export function solve(cards, target) {
  const out = execFileSync(bin('krypto'), ['solve', '--json', '--target', String(target), ...cards.map(String)]);
  const json = JSON.parse(out.toString());
  if (!json.solvable) throw new Error(`no solution for ${cards} → ${target}`);
  return json.solutions[0];
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A phone-sized page of its own (own storage, like a separate phone);
 * collects console errors and CSP violations into `page.problems`.
 */
export async function phone(browser) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
  });
  return watch(await context.newPage());
}

/** A 1920×1080 page for the big screen. */
export async function tv(browser) {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  return watch(await context.newPage());
}

function watch(page) {
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
  page.on('pageerror', (e) => page.problems.push(e.message));
  return page;
}

/** Saves a screenshot in docs/screenshots/NAME.png. */
export async function shoot(page, name, options = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), ...options });
}

const OPERATOR_NAMES = { '+': 'plus', '-': 'minus', '−': 'minus', '*': 'times', '×': 'times', '/': 'divided by', '÷': 'divided by', '(': 'open parenthesis', ')': 'close parenthesis' };

/** Builds `formula` by tapping the hand's cards and the operator pad. */
export async function tapFormula(page, formula) {
  const pieces = formula.match(/\d+|[^\s\d]/g);
  for (const piece of pieces) {
    if (/^\d+$/.test(piece)) {
      await page.getByRole('group', { name: 'Your hand' })
        .getByRole('button', { name: piece, exact: true, disabled: false }).first().tap();
    } else {
      await page.getByRole('group', { name: 'Operators' })
        .getByRole('button', { name: OPERATOR_NAMES[piece], exact: true }).tap();
    }
  }
}

/** The hand and target showing on a phone page. */
export async function readHand(page) {
  const target = Number(await page.locator('.objective-number').textContent());
  const cards = (await page.getByRole('group', { name: 'Your hand' }).getByRole('button').allTextContents())
    .map((t) => Number(t.replace(/\D/g, '')));
  return { target, cards };
}

/** A formula using every card once that does not make `target`. */
export function wrongFormula(cards, target) {
  const sum = cards.reduce((a, b) => a + b, 0);
  if (sum !== target) return cards.join(' + ');
  return cards.join(' * ');
}

/** axe-core's script, read once. */
let axeSource = null;

/**
 * The accessibility violations axe-core finds on `page` as it is now
 * (WCAG 2.x A and AA, and axe's best practices), as lines of text: rule,
 * impact, and the elements. Empty when there are none.
 */
export async function axeViolations(page) {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated by the driver, not as a page script: the page's CSP stays on.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  })).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })));
  return violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).join(', ')}`);
}
