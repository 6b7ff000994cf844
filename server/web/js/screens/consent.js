// A link (a redirect's hand-over, or a scanned device code) would sign this
// browser in as a player while it already plays as someone: nothing changes
// without the person's yes. The current player is kept either way (as the
// previous one after a yes, one tap away on the name screen).

import { h, fill, setText } from '../dom.js';

export function mount(root, { act }) {
  const question = h('p', { class: 'consent-question' });
  const detail = h('p', { class: 'hint' });
  const yes = h('button', { type: 'button', class: 'primary big', on: { click: () => act.answerConsent(true) } });
  const no = h('button', { type: 'button', class: 'secondary big', on: { click: () => act.answerConsent(false) } });
  fill(root,
    h('header', { class: 'hero' }, h('h1', { class: 'logo', text: 'Krypto' })),
    h('section', { class: 'card-panel consent', 'aria-labelledby': 'consent-head' },
      h('h2', { id: 'consent-head', text: 'Switch player on this browser?' }),
      question, detail, h('div', { class: 'row' }, yes, no)));
  return {
    update(state) {
      const c = state.consent;
      if (!c) return;
      const who = c.name ? `“${c.name}”` : 'the player of that code';
      setText(question, c.device
        ? `This link signs this browser in as the player of code ${c.ticket}. It plays as “${c.current}” now.`
        : `This link signs this browser in as ${who}. It plays as “${c.current}” now.`);
      setText(detail, `Only say yes if you opened the link yourself. “${c.current}” stays saved here: you can switch back from the start screen.`);
      setText(yes, c.name ? `Play as ${c.name}` : 'Use that player');
      setText(no, `Keep playing as ${c.current}`);
    },
  };
}
