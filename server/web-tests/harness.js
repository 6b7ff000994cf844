// The pieces every browser test uses: the real server binary on a free
// port with a fresh SQLite file, practice bots from the real client binary,
// the solver (to know a right answer), a browser, and screenshots.
//
// The browser is the engine KRYPTO_BROWSER names, each from Debian's
// packages: `chromium` (the default; Playwright over CDP), `firefox`
// (firefox-esr; Playwright over WebDriver BiDi) or `webkit` (WebKitGTK's
// MiniBrowser; WebDriver classic through webkit.js, under Xvfb). Tests use
// Playwright's Page and Locator API; `engineLacks` names what one engine
// cannot do, for a test to skip there.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, dirname, resolve, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, firefox } from 'playwright-core';
import { launchWebKit, answerReducedMotion } from './webkit.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
/**
 * A krypto binary: `KRYPTO_<NAME>_BIN` if set, else from `KRYPTO_BIN_DIR` (CI's
 * release builds), else the debug build.
 */
const bin = (name) => process.env[`KRYPTO_${name.toUpperCase().replace('-', '_')}_BIN`]
  ?? join(process.env.KRYPTO_BIN_DIR ?? join(repo, 'target', 'debug'), name);

/** The engine these tests run in. */
export const ENGINE = process.env.KRYPTO_BROWSER ?? 'chromium';
if (!['chromium', 'firefox', 'webkit'].includes(ENGINE)) {
  throw new Error(`KRYPTO_BROWSER=${ENGINE}: use chromium, firefox or webkit`);
}

/** Chromium's screenshots are the documentation's; the others' go beside the build. */
export const SCREENSHOTS = ENGINE === 'chromium'
  ? join(repo, 'docs', 'screenshots')
  : join(repo, 'target', 'web-screenshots', ENGINE);

/**
 * Why the engine cannot do `feature` (a reason, for `test(name, { skip })`),
 * or false when it can. WebKitGTK is driven through WebDriver classic,
 * which cannot intercept requests (`route`, `routeWebSocket`).
 */
export function engineLacks(feature) {
  const lacks = { webkit: { route: true, routeWebSocket: true } }[ENGINE] ?? {};
  return lacks[feature] ? `${ENGINE} cannot ${feature} (WebDriver classic has no request interception)` : false;
}

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
    /**
     * A graceful restart: SIGTERM, then the same port and database; `whileDown`, if given, runs
     * (and is awaited) while the server is down.
     */
    async restart(whileDown = async () => {}) {
      await server.stop();
      await whileDown();
      server = await spawnServer(['--listen', `127.0.0.1:${port}`, '--database', database]);
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throwaway PostgreSQL cluster, started by the repository's `.ci/postgres`
 * (as the server's Rust tests and the benchmarks start theirs): the machine's
 * PostgreSQL 13+, on a unix socket in a new temporary directory; `url` is its
 * `postgres` database. Stopped by `stop()`, or by the script's watchdog once
 * this process exits, however it exits.
 */
export async function startPostgres() {
  const script = join(here, '..', '..', '.ci', 'postgres');
  let out;
  try {
    out = execFileSync(script, ['start', '--owner', String(process.pid)], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${script} start failed: ${e.stderr ?? e.message} (install PostgreSQL 13+: .ci/run does)`);
  }
  const said = Object.fromEntries(out.toString().split('\n').filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return {
    url: said.url,
    async stop() {
      execFileSync(script, ['stop', said.dir], { stdio: 'ignore' });
    },
  };
}

/** A free port on 127.0.0.1 (free when asked). */
function freePort() {
  return new Promise((ok) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });
}

/**
 * A node of a cluster on `database` (a PostgreSQL URL), its public URL
 * being its own loopback address.
 */
export async function startNode(database) {
  const port = await freePort();
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

/** The first of `names` found on PATH. */
function onPath(...names) {
  const dirs = (process.env.PATH ?? '').split(delimiter);
  for (const name of names) {
    for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`none of ${names.join(', ')} on PATH (.ci/browser-tests installs them)`);
}

/** Starts the engine's browser, headless. */
export async function launch() {
  if (ENGINE === 'firefox') {
    return firefox.launch({
      channel: 'moz-firefox',
      executablePath: process.env.FIREFOX ?? onPath('firefox-esr', 'firefox'),
      headless: true,
      // With no sound card (a CI machine) Firefox's AudioContext never starts: its own test
      // switch gives it a mock audio device, as Chromium's headless mode has a fake one.
      firefoxUserPrefs: { 'media.cubeb.force_mock_context': true },
    });
  }
  if (ENGINE === 'webkit') {
    return launchWebKit({
      binary: process.env.MINIBROWSER ?? webkitMiniBrowser(), freePort,
    });
  }
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? onPath('chromium', 'chromium-browser'),
    headless: true,
    // --disable-dev-shm-usage: /tmp instead of /dev/shm, which a CI container may give only 64 MB
    // (Chromium's renderers crash when it fills: a TV at 1920×1080 with confetti takes a lot).
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** The entries of `dir`, none when it is missing. */
const entries = (dir) => { try { return readdirSync(dir); } catch { return []; } };

/**
 * WebKitGTK's MiniBrowser, which is not on PATH: the newest of
 * `/usr/lib/<triplet>/webkit2gtk-*\/MiniBrowser` (Debian) and
 * `/usr/libexec/webkit2gtk-*\/MiniBrowser` (Fedora).
 */
function webkitMiniBrowser() {
  const dirs = ['/usr/libexec', ...entries('/usr/lib').map((d) => join('/usr/lib', d))];
  const found = dirs.flatMap((dir) => entries(dir).filter((d) => d.startsWith('webkit2gtk-'))
    .map((d) => join(dir, d, 'MiniBrowser'))).filter((p) => existsSync(p)).sort().pop();
  if (!found) throw new Error('no WebKitGTK MiniBrowser (apt-get install webkit2gtk-driver; .ci/browser-tests does)');
  return found;
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

/** Says once, in the test output, what this engine does differently. */
const said = new Set();
function say(line) {
  if (said.has(line)) return;
  said.add(line);
  process.stdout.write(`${line}\n`);
}

/** The Firefox page last brought to the front (see `adapt`). */
let front = null;

/**
 * Firefox through Playwright's WebDriver BiDi: every page is a tab, and
 * only the front tab has focus, so in any other page `focus`, `blur` and
 * therefore `change` never fire (a number field typed into is never sent).
 * A person's phones are each in front; here an action brings its page to
 * the front first. `fill` adds to a number field's value instead of
 * replacing it, and is no edit to the browser (no `change` when the field
 * is left): there it empties the field and types the text key by key, as a
 * person does. `tap` delivers no touch event at all: it is a click.
 */
function adapt(page) {
  if (ENGINE === 'webkit') {
    say('webkit: tap() is a click, page.problems and init scripts come after each load, and emulateMedia answers matchMedia (WebDriver classic has no touch, no console, no script before the page\'s)');
  }
  if (ENGINE !== 'firefox') return;
  const toFront = async (p) => {
    if (front === p) return;
    await p.bringToFront();
    front = p;
  };
  const locator = Object.getPrototypeOf(page.locator('html'));
  if (!locator.adaptedToFirefox) {
    locator.adaptedToFirefox = true;
    for (const action of ['click', 'fill', 'press', 'pressSequentially', 'selectOption', 'check', 'uncheck']) {
      const original = locator[action];
      locator[action] = async function inFront(...args) {
        await toFront(this.page());
        return original.apply(this, args);
      };
    }
    locator.tap = function tap(options) { return this.click(options); };
    const { fill } = locator;
    locator.fill = async function fillAsTyped(value, options) {
      const text = String(value);
      await fill.call(this, '', options);
      // An emptied field counts as edited too: one key, then its removal.
      await this.pressSequentially(text === '' ? '0' : text, options);
      if (text === '') await this.press('Backspace', options);
    };
  }
  // Playwright over BiDi ignores `reducedMotion` in this Firefox: the page's matchMedia answers it.
  const { emulateMedia } = page;
  page.emulateMedia = async (options = {}) => {
    await emulateMedia.call(page, options);
    if (options.reducedMotion === undefined) return;
    await page.addInitScript(answerReducedMotion, options.reducedMotion);
    await page.evaluate(answerReducedMotion, options.reducedMotion);
  };
  for (const action of ['type', 'press', 'insertText']) {
    const original = page.keyboard[action].bind(page.keyboard);
    page.keyboard[action] = async (...args) => {
      await toFront(page);
      return original(...args);
    };
  }
  say('firefox: tap() is a click, fill() types key by key, a page is brought to the front before each action, and emulateMedia answers matchMedia (Playwright over BiDi: no touch event, a fill that is no edit, focus only in the front tab, no reduced motion)');
}

/**
 * Firefox's own report of a WebSocket cut by the page navigating away while
 * it opened; the same socket's "can't establish a connection" just before
 * it is part of that report, not a failure of the page.
 */
const INTERRUPTED = /^The connection to (\S+) was interrupted while the page was loading\.$/;

function watch(page) {
  adapt(page);
  page.problems = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const interrupted = ENGINE === 'firefox' && INTERRUPTED.exec(m.text());
    if (!interrupted) {
      page.problems.push(m.text());
      return;
    }
    const opening = page.problems.findLastIndex((p) => p.endsWith(`establish a connection to the server at ${interrupted[1]}.`));
    if (opening >= 0) page.problems.splice(opening, 1);
  });
  page.on('pageerror', (e) => page.problems.push(e.message));
  // A crashed renderer leaves every wait on the page to time out: say so where it happens.
  if (ENGINE !== 'webkit') {
    page.on('crash', () => {
      page.problems.push('the page crashed');
      console.error(`${ENGINE}: a page crashed at ${page.url()}`);
    });
  }
  return page;
}

/**
 * A browser's console report of a WebSocket that could not connect: the
 * page trying again while its server restarts or its node is down (or a
 * test cuts the connection), not a failure of the page
 * (Chromium: "WebSocket connection to '…' failed", Firefox: "can’t
 * establish a connection to the server at ws://…").
 */
export const refusedSocket = (problem) =>
  /^WebSocket connection to '\S+' failed|can’t establish a connection to the server at wss?:\/\//.test(problem);

/**
 * Makes `page` note, from now on and after each load, each text an element
 * matching `selector` shows, when it shows it: for what lasts a moment (a
 * celebration, a floating reaction, a countdown's seconds), which a look
 * afterwards can miss on a loaded machine. `shown` waits for a note.
 */
export async function noteShown(page, selector) {
  await page.addInitScript(noting, selector);
  await page.evaluate(noting, selector);
}

/** In the page: notes `selector`'s texts in `window.shown[selector]` (see `noteShown`). */
function noting(selector) {
  window.shown ??= {};
  if (window.shown[selector]) return;
  const notes = [];
  window.shown[selector] = notes;
  const last = new WeakMap();
  const look = () => {
    for (const el of document.querySelectorAll(selector)) {
      const text = el.hidden ? '' : el.textContent;
      if (text && last.get(el) !== text) {
        notes.push({ text, className: el.className, elements: el.childElementCount });
      }
      last.set(el, text);
    }
  };
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
  look();
}

/**
 * Waits until `page` has shown `text` (the whole text, or a RegExp) in an
 * element matching `selector`, noted since `noteShown`; returns the note:
 * the text, the element's classes and how many elements it held.
 */
export async function shown(page, selector, text) {
  const wanted = text instanceof RegExp ? { source: text.source, flags: text.flags } : { text };
  const find = ([sel, w]) => (window.shown?.[sel] ?? []).find((n) => (w.source === undefined
    ? n.text === w.text : new RegExp(w.source, w.flags).test(n.text)));
  await page.waitForFunction(find, [selector, wanted]);
  return page.evaluate(find, [selector, wanted]);
}

/** The texts `page` has shown in `selector`'s elements so far (see `noteShown`). */
export const allShown = (page, selector) => page.evaluate((sel) => (window.shown?.[sel] ?? []).map((n) => n.text), selector);

/** Saves a screenshot in docs/screenshots/NAME.png. */
export async function shoot(page, name, options = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.problems.length;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), ...options });
  // In Firefox, Playwright's screenshot adds a <style> of its own, which
  // the page's CSP refuses: that report is the harness's, not the page's.
  if (ENGINE === 'firefox') {
    const during = page.problems.splice(before);
    page.problems.push(...during.filter((p) => !/blocked an inline style/.test(p)));
  }
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

/** A room's settings as the server sends them, for scripted servers. */
export const ROOM_SETTINGS = {
  variant: 'krypto', rules: 'free', rounds: 10, target_score: null, round_seconds: 90, lockout_seconds: 5,
  wrong_penalty: 0, deal: 'solvable', difficulty: 'any', max_players: 8, public: false,
};

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
