// "Use my name on another device": this device shows a short code and its
// QR code (single use, minutes to live); the other device types or scans it
// and gets its own sign-in for the same player. The code is the only thing
// shown; the token never leaves this device.
//
// "Your devices": every device that signs in as this player, when each was
// added and last used, with a Revoke button for each of the others.

import { h, fill, setText } from '../dom.js';
import { leftUntil, clockText } from '../clock.js';

export function devicePanel(act) {
  const open = h('button', { type: 'button', class: 'link', on: { click: act.linkDevice }, text: 'Use my name on another device' });
  const codeText = h('p', { class: 'device-code', 'aria-label': 'Device code' });
  const left = h('p', { class: 'hint', role: 'timer' });
  const qr = h('div', { class: 'device-qr' });
  const box = h('section', { class: 'card-panel device', 'aria-labelledby': 'device-head' },
    h('h2', { id: 'device-head', text: 'Your name on another device' }),
    h('p', { text: 'On the other device, scan this, or open this server and choose “I already play on another device”, then type:' }),
    codeText, qr, left,
    h('button', { type: 'button', class: 'secondary', on: { click: act.closeDevice }, text: 'Done' }));
  const listOpen = h('button', { type: 'button', class: 'link', on: { click: act.listDevices }, text: 'Your devices' });
  const footer = h('span', {}, ' · ', open, ' · ', listOpen);
  const items = h('ul', { class: 'device-list', 'aria-label': 'Your devices' });
  const list = h('section', { class: 'card-panel devices', 'aria-labelledby': 'devices-head' },
    h('h2', { id: 'devices-head', text: 'Your devices' }),
    h('p', { class: 'hint', text: 'Each of these signs in as you. Revoke one you do not know: it is signed out for good.' }),
    items,
    h('button', { type: 'button', class: 'secondary', on: { click: act.closeDevices }, text: 'Done' }));
  let shown = null;
  let shownList;

  function tick(state) {
    const d = state.device;
    if (!d?.code) return;
    const ms = leftUntil(d.deadline);
    setText(left, ms > 0 ? `Works once, for ${clockText(ms)} more.` : 'This code has expired.');
    if (ms <= 0) setText(codeText, '—');
  }

  return {
    /** The button that asks for a code, after its separator (for the footer; hidden with it). */
    footer,
    /** The code and its QR, when shown (for the top of the screen). */
    box,
    /** The list of the player's devices, when open (for the top of the screen). */
    list,
    update(state) {
      list.hidden = !state.devices;
      if (state.devices?.list !== shownList) {
        shownList = state.devices?.list;
        fill(items, shownList ? shownList.map((d) => deviceItem(d, act))
          : h('li', { class: 'hint', text: 'Loading…' }));
      }
      const d = state.device;
      box.hidden = !d;
      footer.hidden = Boolean(d) || !state.me;
      if (!d) return;
      if (d.asking) {
        setText(codeText, '…');
        return;
      }
      if (shown !== d.code) {
        shown = d.code;
        setText(codeText, d.code);
        fill(qr, d.qr && h('img', { class: 'qr', src: d.qr, width: 200, height: 200, alt: `QR code that opens this server with code ${d.code}` }));
      }
      tick(state);
    },
    tick,
  };
}

/** One device: its label, when it was added and last used, and Revoke (not for this one). */
function deviceItem(d, act) {
  const day = (ms) => new Date(ms).toLocaleDateString();
  return h('li', { class: 'device-item' },
    h('strong', { text: d.label }),
    h('span', { class: 'hint', text: ` added ${day(d.created)}, last used ${day(d.lastUsed)}` }),
    d.mine ? h('span', { class: 'tag', text: 'this device' })
      : h('button', { type: 'button', class: 'secondary small', 'aria-label': `Revoke ${d.label}`, on: { click: () => act.revokeDevice(d.id) }, text: 'Revoke' }));
}
