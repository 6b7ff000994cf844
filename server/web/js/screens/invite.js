// How others join: the room's code, its link and a QR code of the link.
// The link uses the server's LAN address when the server told us one (a TV
// opened at localhost would otherwise show phones an address they cannot
// reach), else the address this page was loaded from.

import { h } from '../dom.js';
import { at } from '../address.js';

/** The base address (`http://192.168.1.20:7878`) to show others. */
export function joinBase(state) {
  const lan = state.joinUrls.find((u) => /^https?:\/\//.test(u) && !/\/\/(localhost|127\.|\[::1\])/.test(u));
  return (lan ?? location.origin).replace(/\/+$/, '');
}

/** The parts of an invitation, for screens to lay out as they like. */
export function invite(state, code) {
  const base = joinBase(state);
  const link = `${base}/r/${code}`;
  return {
    link,
    shown: link.replace(/^https?:\/\//, ''),
    qr: h('img', {
      class: 'qr', width: 256, height: 256,
      src: at(`/r/${encodeURIComponent(code)}/qr.svg?base=${encodeURIComponent(base)}`),
      alt: `QR code of the link to room ${code}`,
    }),
  };
}

/**
 * A shown link in two pieces that break only between them, never inside
 * `/r/CODE`: the address (with `addressClass`), a break chance, the rest.
 */
export function linkPieces(shown, addressClass = 'nowrap') {
  const cut = shown.lastIndexOf('/r/');
  if (cut <= 0) return [h('span', { class: addressClass, text: shown })];
  return [h('span', { class: addressClass, text: shown.slice(0, cut) }), h('wbr'),
    h('span', { class: 'nowrap', text: shown.slice(cut) })];
}
