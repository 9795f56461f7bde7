// The page's one WebSocket to the server: hello, commands answered by id, events handed on,
// and a new connection (with a new hello) after a dropped one.

import { decode, encode } from "./msgpack.js";

const PROTOCOL_VERSION = 1;
const RETRY_MS = [250, 500, 1000, 2000, 4000];

export class Connection {
  constructor(name, key) {
    this.name = name;
    this.key = key;
    this.account = false;
    this.nextId = 1;
    this.waiting = new Map();
    this.socket = null;
    this.ready = null;
    this.isOpen = false;
    this.tries = 0;
    this.onEvent = () => {};
    this.onState = () => {};
    this.onReconnect = () => {};
  }

  /** Open the connection and say hello; resolves once the server answered it. */
  open() {
    this.ready = new Promise((resolve, reject) => {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      const socket = new WebSocket(`${scheme}//${location.host}/`);
      socket.binaryType = "arraybuffer";
      this.socket = socket;
      socket.onopen = () => {
        const hello = { type: "hello", proto: PROTOCOL_VERSION, name: this.name, role: "human" };
        if (this.key) hello.key = this.key;
        this.send(hello)
          .then((ok) => {
            this.tries = 0;
            this.isOpen = true;
            this.account = Boolean(ok.account);
            this.onState("open");
            resolve(ok);
          })
          .catch(reject);
      };
      socket.onmessage = (message) => this.receive(message.data);
      socket.onclose = (close) => this.closed(close, reject);
    });
    return this.ready;
  }

  receive(data) {
    let message;
    try {
      message = decode(data);
    } catch {
      return;
    }
    if ((message.type === "ok" || message.type === "error") && this.waiting.has(message.id)) {
      const { resolve, reject } = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.type === "ok") resolve(message);
      else reject(message);
      return;
    }
    this.onEvent(message);
  }

  closed(close, reject) {
    this.isOpen = false;
    for (const { reject: fail } of this.waiting.values()) {
      fail({ code: "disconnected", message: "the connection dropped" });
    }
    this.waiting.clear();
    reject({ code: "disconnected", message: "the connection dropped" });
    if (close.code === 4000 || this.socket === null) {
      this.onState("closed");
      return;
    }
    this.onState(close.code === 4001 ? "taken" : "reconnecting");
    if (close.code === 4001) return;
    const delay = RETRY_MS[Math.min(this.tries, RETRY_MS.length - 1)];
    this.tries += 1;
    setTimeout(() => {
      this.open()
        .then(() => this.onReconnect())
        .catch(() => {});
    }, delay);
  }

  /** Send a command; resolves with its `ok`, rejects with its `error`. */
  send(command) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject({ code: "disconnected", message: "not connected" });
        return;
      }
      this.waiting.set(id, { resolve, reject });
      this.socket.send(encode({ ...command, id }));
    });
  }

  /** A command sent once the connection is ready. */
  async request(command) {
    await this.ready;
    return this.send(command);
  }

  /** Close for good: a new name makes a new connection. */
  shut() {
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
  }
}
