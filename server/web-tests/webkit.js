// WebKitGTK (Debian's MiniBrowser, driven by WebKitWebDriver through
// selenium-webdriver) behind the part of Playwright's Browser, Page and
// Locator API the browser tests use, so the same test files run in it.
//
// WebDriver classic has no request interception and no console: `route`
// and `routeWebSocket` throw (tests that need them are skipped in WebKit,
// see `engineLacks` in harness.js), and `problems` holds only what a hook
// installed after each navigation sees (errors and console.error calls).
// Roles and accessible names are computed by @testing-library/dom, loaded
// into the page; text matching follows Playwright's rules (whitespace
// normalised, case-insensitive substring unless `exact`).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Builder, Key } from 'selenium-webdriver';

const require = createRequire(import.meta.url);
const TESTING_LIBRARY = readFileSync(require.resolve('@testing-library/dom/dist/@testing-library/dom.umd.min.js'), 'utf8');

/** Playwright's default: how long an action or a wait may take. */
const TIMEOUT = 30_000;
/** How often a wait looks again at the page. */
const POLL = 50;

const KEYS = {
  Enter: Key.ENTER, Escape: Key.ESCAPE, Tab: Key.TAB, Backspace: Key.BACK_SPACE, Delete: Key.DELETE,
  ArrowUp: Key.ARROW_UP, ArrowDown: Key.ARROW_DOWN, ArrowLeft: Key.ARROW_LEFT, ArrowRight: Key.ARROW_RIGHT,
  Shift: Key.SHIFT, Control: Key.CONTROL, Alt: Key.ALT, Meta: Key.META, Space: ' ',
};

/** `Shift+Tab` → the WebDriver keys, in order. */
function keysOf(combo) {
  return combo.split('+').map((k) => KEYS[k] ?? k);
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** A regex or string, as the page's resolver reads it. */
const pattern = (p) => (p instanceof RegExp ? { re: p.source, flags: p.flags } : { text: String(p) });

/**
 * Runs in the page: the elements `steps` select, in document order; null
 * when the page has not got @testing-library/dom yet. (The library goes in
 * as a script of its own: the page's CSP forbids eval, WebDriver's scripts
 * are not bound by it.)
 */
const RESOLVE = `function resolve(steps) {
const TL = window.TestingLibraryDom;
if (!TL) return null;
const norm = (s) => (s ?? '').replace(/\\s+/g, ' ').trim();
const matches = (value, p, exact) => {
  const v = norm(value);
  if (p.re !== undefined) return new RegExp(p.re, p.flags).test(v);
  return exact ? v === norm(p.text) : v.toLowerCase().includes(norm(p.text).toLowerCase());
};
const textOf = (e) => (e instanceof HTMLInputElement && ['button', 'submit'].includes(e.type) ? e.value : e.textContent);
const disabled = (e) => e.disabled === true || e.closest('[aria-disabled="true"]') !== null;
let els = [document.documentElement];
for (const s of steps) {
  let next = [];
  for (const root of els) {
    if (s.kind === 'css') next.push(...root.querySelectorAll(s.css));
    else if (s.kind === 'role') {
      const name = s.name ? (n) => matches(n, s.name, s.exact) : undefined;
      let found = TL.queryAllByRole(root, s.role, name ? { name } : {});
      if (s.disabled !== undefined) found = found.filter((e) => disabled(e) === s.disabled);
      next.push(...found);
    } else if (s.kind === 'label') {
      next.push(...TL.queryAllByLabelText(root, (label) => matches(label, s.text, s.exact)));
      next.push(...[...root.querySelectorAll('[aria-label]')].filter((e) => matches(e.getAttribute('aria-label'), s.text, s.exact)));
    } else if (s.kind === 'text') {
      const all = [...root.querySelectorAll('body, body *')].filter((e) => !['SCRIPT', 'STYLE'].includes(e.tagName)
        && matches(textOf(e), s.text, s.exact));
      next.push(...all.filter((e) => !all.some((d) => d !== e && e.contains(d))));
    }
  }
  if (s.kind === 'hasText') next = els.filter((e) => matches(e.textContent, s.text, false));
  if (s.kind === 'nth') next = els.at(s.n) ? [els.at(s.n)] : [];
  const seen = new Set();
  els = next.filter((e) => !seen.has(e) && seen.add(e));
  els.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
}
return els.filter((e) => e !== document.documentElement || steps.length === 0);
}`;

const VISIBLE = `
const e = arguments[0];
const r = e.getBoundingClientRect();
return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
`;

/** Collects errors and console.error calls into window.__problems. */
const HOOK = `
if (!window.__problems) {
  window.__problems = [];
  addEventListener('error', (e) => window.__problems.push(e.message));
  addEventListener('unhandledrejection', (e) => window.__problems.push(String(e.reason)));
  const error = console.error.bind(console);
  console.error = (...args) => { window.__problems.push(args.join(' ')); error(...args); };
}
const out = window.__problems.splice(0);
return out;
`;

/** A query of the page, run again each time it is used (as Playwright's). */
class Locator {
  constructor(page, steps) {
    this._page = page;
    this._steps = steps;
  }

  _with(step) { return new Locator(this._page, [...this._steps, step]); }
  locator(css, { hasText } = {}) {
    const l = this._with({ kind: 'css', css });
    return hasText === undefined ? l : l._with({ kind: 'hasText', text: pattern(hasText) });
  }
  getByRole(role, { name, exact = false, disabled } = {}) {
    return this._with({ kind: 'role', role, name: name === undefined ? undefined : pattern(name), exact, disabled });
  }
  getByText(text, { exact = false } = {}) { return this._with({ kind: 'text', text: pattern(text), exact }); }
  getByLabel(text, { exact = false } = {}) { return this._with({ kind: 'label', text: pattern(text), exact }); }
  filter({ hasText }) { return this._with({ kind: 'hasText', text: pattern(hasText) }); }
  first() { return this.nth(0); }
  last() { return this.nth(-1); }
  nth(n) { return this._with({ kind: 'nth', n }); }

  /** `expression` of `els`, the elements the locator selects now, read in the page. */
  async _read(expression) {
    const driver = this._page._driver;
    const script = `${RESOLVE}\nconst els = resolve(arguments[0]);\nreturn els === null ? null : ${expression};`;
    const found = await driver.executeScript(script, this._steps);
    if (found !== null) return found;
    await driver.executeScript(TESTING_LIBRARY);
    return driver.executeScript(script, this._steps);
  }

  async _all() { return this._read('els'); }
  /** The elements now, or none when the page could not be asked (kept as `_error`). */
  async _now() {
    try {
      return await this._all();
    } catch (e) {
      this._error = e;
      return [];
    }
  }

  _timeout(what) {
    const why = this._error ? ` (last error: ${this._error.message})` : '';
    return new Error(`webkit: ${JSON.stringify(this._steps)} never ${what}${why}`);
  }

  async _visible(e) { return this._page._driver.executeScript(VISIBLE, e); }

  /** The first element once it is visible (and enabled, for `enabled`). */
  async _element({ enabled = false, timeout = TIMEOUT } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const [e] = await this._now();
      if (e && await this._visible(e).catch(() => false)
        && (!enabled || !await e.getAttribute('disabled').catch(() => null))) return e;
      if (Date.now() > deadline) throw this._timeout(enabled ? 'visible and enabled' : 'visible');
      await sleep(POLL);
    }
  }

  async waitFor({ state = 'visible', timeout = TIMEOUT } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const [e] = await this._now();
      const shown = e ? await this._visible(e).catch(() => false) : false;
      const done = { visible: shown, hidden: !shown, attached: !!e, detached: !e }[state];
      if (done) return this._page._sync();
      if (Date.now() > deadline) throw this._timeout(state);
      await sleep(POLL);
    }
  }

  async click() { await (await this._element({ enabled: true })).click(); await this._page._sync(); }
  async tap() { await this.click(); }
  async fill(value) {
    const e = await this._element({ enabled: true });
    await e.clear();
    if (value !== '') await e.sendKeys(value);
    await this._page._sync();
  }
  async type(text) { await (await this._element()).sendKeys(text); await this._page._sync(); }
  async press(key) { await (await this._element()).sendKeys(...keysOf(key)); await this._page._sync(); }
  async selectOption(value) {
    const e = await this._element({ enabled: true });
    await this._page._driver.executeScript(`
      const [select, value] = arguments;
      const option = [...select.options].find((o) => o.value === value || o.label === value);
      if (!option) throw new Error('no option ' + value);
      select.value = option.value;
      select.dispatchEvent(new Event('input', { bubbles: true }));
      select.dispatchEvent(new Event('change', { bubbles: true }));`, e, value);
    await this._page._sync();
  }
  async textContent() {
    await this.waitFor({ state: 'attached' });
    const [e] = await this._all();
    return this._page._driver.executeScript('return arguments[0].textContent', e);
  }
  async allTextContents() { return this._read('els.map((e) => e.textContent)'); }
  async getAttribute(name) {
    await this.waitFor({ state: 'attached' });
    const [e] = await this._all();
    return this._page._driver.executeScript('return arguments[0].getAttribute(arguments[1])', e, name);
  }
  async isDisabled() {
    await this.waitFor({ state: 'attached' });
    const [e] = await this._all();
    return this._page._driver.executeScript('return arguments[0].disabled === true', e);
  }
  async count() { return this._read('els.length'); }
  async all() { return (await this._all()).map((_, i) => this.nth(i)); }
  async evaluate(fn, arg) {
    const e = await this._element();
    return this._page._evaluate(fn, arg, e);
  }
}

/** One page in its own browser (own storage, like a separate phone). */
class Page {
  constructor(driver, stop) {
    this._driver = driver;
    this._stop = stop;
    this._url = 'about:blank';
    this.problems = [];
    this._listeners = [];
    this.keyboard = {
      type: async (text) => { await driver.actions().sendKeys(text).perform(); await this._sync(); },
      press: async (combo) => {
        const keys = keysOf(combo);
        let actions = driver.actions();
        for (const k of keys) actions = actions.keyDown(k);
        for (const k of [...keys].reverse()) actions = actions.keyUp(k);
        await actions.perform();
        await this._sync();
      },
    };
  }

  /** Reads the URL and the problems the page hook collected. */
  async _sync() {
    this._url = await this._driver.getCurrentUrl();
    const found = await this._driver.executeScript(HOOK).catch(() => []);
    this.problems.push(...found);
  }

  async _evaluate(fn, arg, element) {
    const source = typeof fn === 'function' ? fn.toString() : `() => (${fn})`;
    const result = await this._driver.executeAsyncScript(`
      const done = arguments[arguments.length - 1];
      const element = arguments[1];
      Promise.resolve().then(() => (${source})(element ?? arguments[0], arguments[0]))
        .then((value) => done({ value }), (e) => done({ error: String(e) }));`, arg ?? null, element ?? null);
    await this._sync();
    if (result?.error) throw new Error(`webkit: evaluate: ${result.error}`);
    return result?.value ?? undefined;
  }

  on(event, listener) { this._listeners.push({ event, listener }); }
  url() { return this._url; }
  async goto(url) { await this._driver.get(url); await this._sync(); }
  async reload() { await this._driver.navigate().refresh(); await this._sync(); }
  async evaluate(fn, arg) { return this._evaluate(fn, arg); }
  async waitForFunction(fn, arg, { timeout = TIMEOUT } = {}) {
    const deadline = Date.now() + timeout;
    while (!await this._evaluate(fn, arg).catch(() => false)) {
      if (Date.now() > deadline) throw new Error(`webkit: waitForFunction(${fn}) timed out`);
      await sleep(POLL);
    }
  }
  async waitForURL(want, { timeout = TIMEOUT } = {}) {
    const test = want instanceof RegExp ? (u) => want.test(u) : typeof want === 'function' ? (u) => want(new URL(u)) : (u) => u === want;
    const deadline = Date.now() + timeout;
    for (;;) {
      await this._sync().catch(() => {});
      if (test(this._url)) return;
      if (Date.now() > deadline) throw new Error(`webkit: the URL never matched ${want}; it is ${this._url}`);
      await sleep(POLL);
    }
  }
  async screenshot({ path } = {}) {
    const png = Buffer.from(await this._driver.takeScreenshot(), 'base64');
    if (path) writeFileSync(path, png);
    return png;
  }
  async route() { throw new Error('webkit: page.route needs request interception, which WebDriver classic has not'); }
  async routeWebSocket() { throw new Error('webkit: page.routeWebSocket needs request interception, which WebDriver classic has not'); }
  async close() { await this._stop(); }

  getByRole(...a) { return new Locator(this, []).getByRole(...a); }
  getByText(...a) { return new Locator(this, []).getByText(...a); }
  getByLabel(...a) { return new Locator(this, []).getByLabel(...a); }
  locator(...a) { return new Locator(this, []).locator(...a); }
}

/**
 * Starts WebKitGTK's MiniBrowser for one page through its own
 * WebKitWebDriver on `port`, its window sized to `viewport` (as near as the
 * window allows: its page area is measured and the window grown to fit).
 */
async function openPage({ binary, port, viewport }) {
  const driverProcess = spawn('WebKitWebDriver', [`--port=${port}`], { stdio: 'ignore' });
  const exited = new Promise((ok) => driverProcess.on('exit', ok));
  const stopDriver = async () => {
    if (driverProcess.exitCode === null) driverProcess.kill('SIGTERM');
    await exited;
  };
  let driver;
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    try {
      driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary, args: ['--automation'] },
      }).build();
      break;
    } catch (e) {
      if (driverProcess.exitCode !== null || Date.now() > deadline) {
        await stopDriver();
        throw new Error(`webkit: no WebDriver session (is DISPLAY set? run under xvfb-run): ${e.message}`);
      }
      await sleep(POLL);
    }
  }
  const rect = await driver.manage().window().getRect();
  const [innerWidth, innerHeight] = await driver.executeScript('return [innerWidth, innerHeight]');
  await driver.manage().window().setRect({
    width: viewport.width + (rect.width - innerWidth), height: viewport.height + (rect.height - innerHeight),
  });
  const page = new Page(driver, async () => {
    await driver.quit().catch(() => {});
    await stopDriver();
  });
  return page;
}

/**
 * A WebKitGTK "browser": each context is a MiniBrowser of its own, on a
 * port `freePort` gives. Closing it closes every page it opened.
 */
export function launchWebKit({ binary, freePort }) {
  const pages = [];
  return {
    async newContext({ viewport = { width: 1280, height: 720 } } = {}) {
      return {
        newPage: async () => {
          const page = await openPage({ binary, port: await freePort(), viewport });
          pages.push(page);
          return page;
        },
      };
    },
    async close() {
      await Promise.all(pages.map((p) => p.close()));
    },
  };
}
