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
      // dom-accessibility-api drops the space between inline elements ("<span>🔈</span><span>
      // Tap</span>" is "🔈Tap", "🔈 Tap" to browsers): a name from content is also matched as
      // the text a reader hears, aria-hidden parts left out.
      const spoken = (e) => {
        if (e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby')) return null;
        const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
        let text = '';
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
          if (!t.parentElement.closest('[aria-hidden="true"]')) text += t.data;
        }
        return text;
      };
      const name = s.name ? (n, e) => matches(n, s.name, s.exact)
        || (spoken(e) !== null && matches(spoken(e), s.name, s.exact)) : undefined;
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

/**
 * The centre of arguments[0] in the viewport (scrolled into view first when
 * it is not), and whether a click there reaches it. Until `UNGUARD` runs,
 * the pointer's events that reach anything else are stopped before the
 * page sees them, as Playwright's hit-target check does: the page may move
 * between this answer and the pointer's press (a banner that went away), and
 * the press then lands on whatever came under it.
 */
const CLICK_POINT = `
const [e, done] = arguments;
const centre = () => {
  const r = e.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2, r };
};
let at = centre();
if (at.r.top < 0 || at.r.left < 0 || at.r.bottom > innerHeight || at.r.right > innerWidth) {
  // At once: a smooth scroll would still be moving the element when the pointer comes.
  e.scrollIntoView({ block: 'end', inline: 'nearest', behavior: 'instant' });
}
// Once it stays put: WebKit may still be scrolling the page (to a field just
// focused) a moment after the element was scrolled into view.
const settle = (looks) => setTimeout(() => {
  const now = centre();
  if ((now.x !== at.x || now.y !== at.y) && looks < 20) {
    at = now;
    settle(looks + 1);
    return;
  }
  const top = document.elementFromPoint(now.x, now.y);
  const hit = top !== null && (top === e || e.contains(top));
  window.__unguard?.();
  window.__unguard = null;
  if (!hit) {
    done({ hit });
    return;
  }
  window.__clicked = false;
  window.__missed = false;
  const guard = (event) => {
    if (e.contains(event.target)) {
      if (event.type === 'click') window.__clicked = true;
      return;
    }
    window.__missed = true;
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  const types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
  for (const type of types) addEventListener(type, guard, { capture: true });
  window.__unguard = () => types.forEach((type) => removeEventListener(type, guard, { capture: true }));
  done({ x: now.x, y: now.y, hit });
}, 50);
settle(0);
`;

/** Takes `CLICK_POINT`'s guard away: [whether the element got a click, whether anything else was pressed]. */
const UNGUARD = 'window.__unguard?.(); return [window.__clicked, window.__missed];';

/**
 * The first of `els` (none when there is none), whether it is visible and
 * whether it is enabled: one round trip for each look of a wait.
 */
const FIRST = `els.length === 0 ? [] : [els[0], (() => {
  const r = els[0].getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(els[0]).visibility !== 'hidden';
})(), els[0].disabled !== true]`;

/** Collects errors, console.error calls and CSP reports into window.__problems. */
const HOOK = `
if (!window.__problems) {
  window.__problems = [];
  addEventListener('error', (e) => window.__problems.push(e.message));
  addEventListener('unhandledrejection', (e) => window.__problems.push(String(e.reason)));
  // What Chromium and Firefox print to the console, WebKit fires as an event only.
  addEventListener('securitypolicyviolation', (e) => window.__problems.push(
    'Content-Security-Policy: ' + e.effectiveDirective + ' blocked ' + (e.blockedURI || 'an inline resource')));
  const error = console.error.bind(console);
  console.error = (...args) => { window.__problems.push(args.join(' ')); error(...args); };
}
`;

/**
 * Runs in a page: from now on its `matchMedia` answers
 * `prefers-reduced-motion` as `value` ('reduce' or 'no-preference') says.
 * For engines whose driver cannot emulate the media feature (the
 * stylesheets' media queries keep the browser's own answer).
 */
export function answerReducedMotion(value) {
  window.__reducedMotion = value;
  if (window.__matchMedia) return;
  window.__matchMedia = window.matchMedia.bind(window);
  window.matchMedia = (query) => {
    const list = window.__matchMedia(query);
    const asked = /prefers-reduced-motion:\s*(reduce|no-preference)/.exec(query);
    if (!asked) return list;
    return new Proxy(list, {
      get: (l, key) => (key === 'matches' ? asked[1] === window.__reducedMotion
        : typeof l[key] === 'function' ? l[key].bind(l) : l[key]),
    });
  };
}

/** `answerReducedMotion` with arguments[0].reducedMotion, when it is set. */
const MEDIA = `if (arguments[0].reducedMotion !== undefined) (${answerReducedMotion})(arguments[0].reducedMotion);`;

/**
 * After each action, in one round trip: the hook and the media emulation
 * in place; the document's address (WebKitWebDriver's current URL can lag
 * a history.replaceState) and the problems collected since.
 */
const SYNC = `${HOOK}
${MEDIA}
return [location.href, window.__problems.splice(0)];`;

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
  /**
   * `[first element, visible, enabled]` now, or `[]` when there is none or
   * the page could not be asked (kept as `_error`).
   */
  async _now() {
    try {
      return await this._read(FIRST);
    } catch (e) {
      this._error = e;
      return [];
    }
  }

  _timeout(what) {
    const why = this._error ? ` (last error: ${this._error.message})` : '';
    return new Error(`webkit: ${JSON.stringify(this._steps)} never ${what}${why}`);
  }

  /** The first element once it is visible (and enabled, for `enabled`). */
  async _element({ enabled = false, timeout = TIMEOUT } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const [e, shown, usable] = await this._now();
      if (e && shown && (!enabled || usable)) return e;
      if (Date.now() > deadline) throw this._timeout(enabled ? 'visible and enabled' : 'visible');
      await sleep(POLL);
    }
  }

  async waitFor({ state = 'visible', timeout = TIMEOUT } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const [e, shown = false] = await this._now();
      const done = { visible: shown, hidden: !shown, attached: !!e, detached: !e }[state];
      if (done) return this._page._sync();
      if (Date.now() > deadline) throw this._timeout(state);
      await sleep(POLL);
    }
  }

  /**
   * Runs `action` on the element once it is visible (and enabled), again on
   * the new one when the page replaced it meanwhile, as Playwright retries.
   */
  async _act(action, { enabled = true } = {}) {
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const e = await this._element({ enabled, timeout: Math.max(0, deadline - Date.now()) });
      try {
        const result = await action(e);
        await this._page._sync();
        return result;
      } catch (err) {
        // A replaced element, or one under another for now: again, as Playwright waits.
        const again = ['StaleElementReferenceError', 'ElementClickInterceptedError'].includes(err.name);
        if (!again || Date.now() > deadline) throw err;
        await sleep(POLL);
      }
    }
  }

  /**
   * Clicks the element's centre. WebKitWebDriver takes a pointer's
   * coordinates in window pixels, not in the zoomed page's CSS pixels: on a
   * scaled page (see `openPage`) the click is a pointer action at the
   * centre times the scale. `clickCount` presses it that many times in the
   * one action, as Playwright's.
   */
  async click({ clickCount = 1 } = {}) {
    await this._act(async (e) => {
      const { _driver: driver, _scale: scale } = this._page;
      if (scale === 1) {
        for (let i = 0; i < clickCount; i += 1) await e.click();
        return undefined;
      }
      const at = await driver.executeAsyncScript(CLICK_POINT, e);
      if (!at.hit) {
        const err = new Error(`webkit: ${JSON.stringify(this._steps)} is under another element`);
        err.name = 'ElementClickInterceptedError';
        throw err;
      }
      let pointer = driver.actions()
        .move({ x: Math.round(at.x * scale), y: Math.round(at.y * scale), origin: 'viewport' });
      for (let i = 0; i < clickCount; i += 1) pointer = pointer.press().release();
      await pointer.perform()
        .catch(async (err) => {
          await driver.executeScript(UNGUARD).catch(() => {});
          throw err;
        });
      // A press or release that met another element (the page moved under the pointer) was
      // stopped: again, where the element is now. A page that replaced the element between
      // the press and the release got no click either: again, on the new one. (A click that
      // loaded another page leaves no flag to read: it was a click. WebKitWebDriver refuses a
      // script given an element no longer in the document, so that is asked on its own.)
      const [clicked, missed] = await driver.executeScript(UNGUARD).catch(() => [true, false]);
      if (missed) {
        const err = new Error(`webkit: ${JSON.stringify(this._steps)} moved before the pointer came`);
        err.name = 'ElementClickInterceptedError';
        throw err;
      }
      const replaced = clicked === false
        && !await driver.executeScript('return arguments[0].isConnected', e).catch(() => false);
      if (replaced) {
        const err = new Error(`webkit: ${JSON.stringify(this._steps)} was replaced during the click`);
        err.name = 'StaleElementReferenceError';
        throw err;
      }
      return undefined;
    });
  }
  async tap() { await this.click(); }
  /**
   * Selects the field's text and types over it, as a person does. (Not
   * WebDriver's clear, which also leaves the field: a page that refreshes
   * fields nobody is editing would put the old value back before the typing.)
   */
  async fill(value) {
    await this._act(async (e) => {
      await e.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.BACK_SPACE);
      if (value !== '') await e.sendKeys(value);
    });
  }
  /** Focuses the element, as Playwright does before typing into it. */
  async _focus() {
    await this._act((e) => this._page._driver.executeScript('arguments[0].focus()', e), { enabled: false });
  }
  async type(text) { await this._focus(); await this._page.keyboard.type(text); }
  async press(key) { await this._focus(); await this._page.keyboard.press(key); }
  async selectOption(value) {
    await this._act((e) => this._page._driver.executeScript(`
      const [select, value] = arguments;
      const option = [...select.options].find((o) => o.value === value || o.label === value);
      if (!option) throw new Error('no option ' + value);
      select.value = option.value;
      select.dispatchEvent(new Event('input', { bubbles: true }));
      select.dispatchEvent(new Event('change', { bubbles: true }));`, e, value));
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
  async inputValue() {
    await this.waitFor({ state: 'attached' });
    const [e] = await this._all();
    return this._page._driver.executeScript('return arguments[0].value', e);
  }
  /** The element's box in CSS pixels of the viewport, as Playwright's. */
  async boundingBox() {
    await this.waitFor({ state: 'attached' });
    const [e] = await this._all();
    return this._page._driver.executeScript(
      'const r = arguments[0].getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height };', e);
  }
  async pressSequentially(text) { await this.type(text); }
  async count() { return this._read('els.length'); }
  async all() { return (await this._all()).map((_, i) => this.nth(i)); }
  async evaluate(fn, arg) {
    return this._act((e) => this._page._evaluate(fn, arg, e), { enabled: false });
  }
  /** `fn(elements, arg)` in the page, the elements found there (WebKit passes no array of them in). */
  async evaluateAll(fn, arg) {
    await this._all();
    const result = await this._page._driver.executeAsyncScript(`${RESOLVE}
      const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn})(resolve(arguments[0]), arguments[1]))
        .then((value) => done(value === undefined ? { undefined: true } : { value }), (e) => done({ error: String(e) }));`,
    this._steps, arg ?? null);
    await this._page._sync();
    if (result?.error) throw new Error(`webkit: evaluateAll: ${result.error}`);
    return result?.undefined ? undefined : result?.value;
  }
}

/** One page in its own browser (own storage, like a separate phone). */
class Page {
  constructor(driver, stop, scale) {
    this._driver = driver;
    /** Window pixels per CSS pixel (see `openPage`). */
    this._scale = scale;
    this._stop = stop;
    this._url = 'about:blank';
    this.problems = [];
    /** Sources of `addInitScript`, run once in each document (see `_sync`). */
    this._init = [];
    /** The `emulateMedia` features asked for, answered by `matchMedia` (see `_sync`). */
    this._media = {};
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

  /**
   * Reads the URL and the problems the page hook collected; in a document
   * that has not had them yet, runs the init scripts and the media emulation.
   */
  async _sync() {
    const synced = await this._driver.executeScript(SYNC, this._media).catch((e) => {
      this._scriptFailed('the page hook', e);
      return null;
    });
    if (synced) {
      const [url, found] = synced;
      this._url = url;
      this.problems.push(...found);
    } else {
      this._url = await this._driver.getCurrentUrl();
    }
    for (const [i, source] of this._init.entries()) {
      await this._driver.executeScript(`if (window.__init${i}) return; window.__init${i} = true; ${source}`)
        .catch((e) => this._scriptFailed('an init script', e));
    }
  }

  /** A script's own error is a problem of the page; a navigation under way is not. */
  _scriptFailed(what, e) {
    if (e.name === 'JavascriptError') this.problems.push(`webkit: ${what} failed: ${e.message}`);
  }

  /**
   * Sizes the window so the page area is `viewport` CSS pixels (the window
   * is `scale` times larger, see `openPage`).
   */
  async _resize(viewport) {
    const rect = await this._driver.manage().window().getRect();
    const [innerWidth, innerHeight] = await this._driver.executeScript('return [innerWidth, innerHeight]');
    // The window's frame (its header bar) in window pixels, then the page area scaled.
    const frameWidth = rect.width - Math.round(innerWidth * this._scale);
    const frameHeight = rect.height - Math.round(innerHeight * this._scale);
    await this._driver.manage().window().setRect({
      width: Math.round(viewport.width * this._scale) + frameWidth,
      height: Math.round(viewport.height * this._scale) + frameHeight,
    });
    // The window manager answers before the page has its new size.
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const [width, height] = await this._driver.executeScript('return [innerWidth, innerHeight]');
      if (width === viewport.width && height === viewport.height) return;
      if (Date.now() > deadline) {
        throw new Error(`webkit: a page of ${viewport.width}×${viewport.height} was asked for; the window gives ${width}×${height}`);
      }
      await sleep(POLL);
    }
  }

  async setViewportSize(viewport) { await this._resize(viewport); await this._sync(); }

  /**
   * Runs `fn` in every document the page loads from now on. WebDriver
   * classic cannot run a script before the page's own: it runs once the
   * page has loaded (right after `goto`, `reload` or the action that
   * navigated), which is in time for what happens on a player's actions.
   */
  async addInitScript(fn, arg) {
    this._init.push(typeof fn === 'function' ? `(${fn})(${JSON.stringify(arg) ?? ''});` : fn);
  }

  /**
   * Playwright's `emulateMedia({ reducedMotion })`: WebKitGTK takes it from
   * GTK's settings when it starts, so here the page's `matchMedia` answers
   * `prefers-reduced-motion` as asked (the stylesheets' media queries keep
   * the browser's own answer).
   */
  async emulateMedia({ reducedMotion } = {}) {
    if (reducedMotion !== undefined) this._media.reducedMotion = reducedMotion;
    await this._driver.executeScript(MEDIA, this._media);
  }

  /**
   * `fn` run in the page, with `element` (or else `arg`) and `arg`; a string
   * that is no function is run as a script (as axe-core's source is).
   */
  async _evaluate(fn, arg, element) {
    if (typeof fn === 'string' && !/^\s*(async\s*)?(\(|function\b|\w+\s*=>)/.test(fn)) {
      await this._driver.executeScript(fn);
      await this._sync();
      return undefined;
    }
    const source = fn.toString();
    const result = await this._driver.executeAsyncScript(`
      const done = arguments[arguments.length - 1];
      const element = arguments[1];
      Promise.resolve().then(() => (${source})(element ?? arguments[0], arguments[0]))
        .then((value) => done(value === undefined ? { undefined: true } : { value }), (e) => done({ error: String(e) }));`,
    arg ?? null, element ?? null);
    await this._sync();
    if (result?.error) throw new Error(`webkit: evaluate: ${result.error}`);
    return result?.undefined ? undefined : result?.value;
  }

  /** Never called: WebDriver classic has no console; `_sync` fills `problems` instead. */
  on() {}
  url() { return this._url; }
  async goto(url) { await this._driver.get(url); await this._loaded(); }
  async reload() { await this._driver.navigate().refresh(); await this._loaded(); }
  /** Waits for the new document's load, as Playwright's `goto` does (WebKitWebDriver may answer sooner). */
  async _loaded() {
    const deadline = Date.now() + TIMEOUT;
    while (await this._driver.executeScript('return document.readyState').catch(() => null) !== 'complete') {
      if (Date.now() > deadline) throw new Error('webkit: the page never finished loading');
      await sleep(POLL);
    }
    await this._sync();
  }
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
  /** Stops its MiniBrowser, once (its context and the browser may both close it). */
  async close() {
    this._closed ??= this._stop();
    await this._closed;
  }
  /** The context that opened the page (its own MiniBrowser). */
  context() { return this._context; }

  getByRole(...a) { return new Locator(this, []).getByRole(...a); }
  getByText(...a) { return new Locator(this, []).getByText(...a); }
  getByLabel(...a) { return new Locator(this, []).getByLabel(...a); }
  locator(...a) { return new Locator(this, []).locator(...a); }
}

/**
 * Starts WebKitGTK's MiniBrowser for one page through its own
 * WebKitWebDriver on `port`, its page area sized to `viewport`.
 *
 * `scale` is the device scale factor. WebKitGTK has none to set per page,
 * but it zooms pages by GTK's text scale (GDK_DPI_SCALE): at 2 a CSS pixel
 * is two window pixels, as on a phone's screen. That is also what lets a
 * page be narrower than MiniBrowser's window can be (447 px with WebKitGTK
 * 2.50, for its toolbar): a 320 px phone is a 640 px window.
 */
async function openPage({ binary, port, viewport, scale }) {
  const driverProcess = spawn('WebKitWebDriver', [`--port=${port}`], {
    stdio: 'ignore', env: { ...process.env, GDK_DPI_SCALE: String(scale) },
  });
  const exited = new Promise((ok) => driverProcess.on('exit', ok));
  const stopDriver = async () => {
    if (driverProcess.exitCode !== null) return;
    driverProcess.kill('SIGTERM');
    // A driver that does not stop is killed: a stuck browser must not hang the suite.
    const kill = setTimeout(() => driverProcess.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
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
  const page = new Page(driver, async () => {
    await Promise.race([driver.quit().catch(() => {}), sleep(10_000)]);
    await stopDriver();
  }, scale);
  try {
    await page._resize(viewport);
  } catch (e) {
    await page.close();
    throw e;
  }
  return page;
}

/**
 * A WebKitGTK "browser": each context is a MiniBrowser of its own, on a
 * port `freePort` gives. Closing it closes every page it opened.
 */
export function launchWebKit({ binary, freePort }) {
  const pages = [];
  return {
    async newContext({ viewport = { width: 1280, height: 720 }, deviceScaleFactor = 1 } = {}) {
      const mine = [];
      const context = {
        newPage: async () => {
          const page = await openPage({ binary, port: await freePort(), viewport, scale: deviceScaleFactor });
          page._context = context;
          pages.push(page);
          mine.push(page);
          return page;
        },
        async close() {
          await Promise.all(mine.splice(0).map((p) => p.close()));
        },
      };
      return context;
    },
    async close() {
      await Promise.all(pages.map((p) => p.close()));
    },
  };
}
