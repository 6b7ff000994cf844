// Building DOM nodes without HTML strings: every piece of text, above all
// anything a player wrote, goes in as a text node, never parsed as HTML.

/**
 * Makes an element. `attrs`: `class`, `text` (its text content), `on`
 * (event name → handler), DOM properties that must be set as properties
 * (`value`, `checked`, `disabled`, `hidden`), and anything else as an
 * attribute. Children: nodes, strings (as text), arrays, or null/false
 * (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'on') for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === 'value' || key === 'checked' || key === 'disabled' || key === 'hidden') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces an element's children (same child rules as `h`). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Sets text only when it changed, so screen readers are not re-told. */
export function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

/**
 * A `fill` of `el` that rebuilds it only when `key` changed since the last
 * call: a button rebuilt by every message is a new element under the
 * finger, and a tap whose press and release land on two elements is no
 * click (a Safari player's Rematch then does nothing).
 */
export function keyedFill(el) {
  let shown = null;
  return (key, make) => {
    if (key === shown) return;
    shown = key;
    fill(el, make());
  };
}
