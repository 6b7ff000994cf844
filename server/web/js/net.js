// The WebSocket to this server: JSON in, JSON out, and reconnecting with
// back-off when the connection drops or the server restarts. Whoever owns
// the connection says hello again on every `open` (the token resumes the
// seat), so a phone that slept or a restarted server is picked up again.

import { socketUrl } from './address.js';
import { LIMITS } from './limits.js';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/** Close codes after which reconnecting would only fight someone else. */
const FINAL = new Set([
  LIMITS.replaced_close_code, // a newer connection with the same token (another tab)
]);

export class Connection {
  /**
   * `onOpen()`, `onMessage(obj)`, `onStatus(status, code)` with status
   * `connecting`, `open`, `waiting` (will retry), `idle` (closed, nothing
   * to say yet) or `replaced`. `wanted()` says whether the page has
   * anything to say: the server closes a socket that says no hello in
   * time, so a page still asking for a name opens none (see `ensure`).
   */
  constructor({ onOpen, onMessage, onStatus, wanted = () => true }) {
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.wanted = wanted;
    this.delay = FIRST_DELAY_MS;
    this.nextId = 1;
    this.socket = null;
    this.timer = null;
  }

  url() {
    return socketUrl(location);
  }

  connect() {
    clearTimeout(this.timer);
    this.onStatus('connecting');
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.delay = FIRST_DELAY_MS;
      this.onStatus('open');
      this.onOpen();
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return; // The server only sends JSON; ignore anything else.
      }
      if (message && typeof message.type === 'string') this.onMessage(message);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (FINAL.has(event.code)) {
        this.onStatus('replaced', event.code);
        return;
      }
      if (!this.wanted()) {
        this.delay = FIRST_DELAY_MS;
        this.onStatus('idle', event.code);
        return;
      }
      this.onStatus('waiting', event.code);
      this.timer = setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    });
  }

  /**
   * Drops the connection (if any) and opens a fresh one at once: the
   * server forgets who the old one was (another player signs in on it).
   */
  restart() {
    const old = this.socket;
    this.socket = null;
    if (old) old.close(1000);
    this.delay = FIRST_DELAY_MS;
    if (this.wanted()) this.connect();
    else this.onStatus('idle');
  }

  /**
   * Opens a connection now if there is none (none yet, or waiting out the
   * back-off): the page has something to say. An opening one is left be.
   */
  ensure() {
    if (this.socket) return;
    this.delay = FIRST_DELAY_MS;
    this.connect();
  }

  /** Sends a request; returns its id. Dropped (false) while disconnected. */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    const id = String(this.nextId++);
    this.socket.send(JSON.stringify({ id, ...message }));
    return id;
  }
}
