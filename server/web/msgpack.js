// The msgpack subset the wire protocol uses (docs/protocol.md): nil, booleans, integers,
// floats, strings, arrays and maps with string keys. Written for this page: no extension types.

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** The msgpack bytes of a plain value. */
export function encode(value) {
  const out = [];
  put(value, out);
  return new Uint8Array(out);
}

function putUint(out, marker, value, bytes) {
  out.push(marker);
  for (let shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out.push(Number((BigInt(value) >> BigInt(shift)) & 0xffn));
  }
}

function putLength(out, length, small, markers) {
  if (small !== null && length < 16) out.push(small | length);
  else if (length < 0x100 && markers[0] !== null) putUint(out, markers[0], length, 1);
  else if (length < 0x10000) putUint(out, markers[1], length, 2);
  else putUint(out, markers[2], length, 4);
}

function put(value, out) {
  if (value === null || value === undefined) out.push(0xc0);
  else if (value === false) out.push(0xc2);
  else if (value === true) out.push(0xc3);
  else if (typeof value === "number" && Number.isSafeInteger(value)) putInteger(value, out);
  else if (typeof value === "number") {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value);
    out.push(0xcb, ...new Uint8Array(view.buffer));
  } else if (typeof value === "string") {
    const bytes = utf8Encoder.encode(value);
    if (bytes.length < 32) out.push(0xa0 | bytes.length);
    else putLength(out, bytes.length, null, [0xd9, 0xda, 0xdb]);
    for (const byte of bytes) out.push(byte);
  } else if (Array.isArray(value)) {
    putLength(out, value.length, 0x90, [null, 0xdc, 0xdd]);
    for (const item of value) put(item, out);
  } else if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    putLength(out, entries.length, 0x80, [null, 0xde, 0xdf]);
    for (const [key, item] of entries) {
      put(key, out);
      put(item, out);
    }
  } else throw new TypeError(`msgpack: cannot encode ${typeof value}`);
}

function putInteger(value, out) {
  if (value >= 0) {
    if (value < 0x80) out.push(value);
    else if (value < 0x100) putUint(out, 0xcc, value, 1);
    else if (value < 0x10000) putUint(out, 0xcd, value, 2);
    else if (value < 0x100000000) putUint(out, 0xce, value, 4);
    else putUint(out, 0xcf, value, 8);
  } else if (value >= -32) out.push(value & 0xff);
  else if (value >= -0x80) putUint(out, 0xd0, value & 0xff, 1);
  else if (value >= -0x8000) putUint(out, 0xd1, value & 0xffff, 2);
  else if (value >= -0x80000000) putUint(out, 0xd2, value >>> 0, 4);
  else putUint(out, 0xd3, BigInt.asUintN(64, BigInt(value)), 8);
}

/** The value of one whole msgpack message; throws on trailing bytes or unknown types. */
export function decode(buffer) {
  const bytes = new Uint8Array(buffer);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.length), at: 0 };
  const value = take(reader);
  if (reader.at !== bytes.length) throw new Error("msgpack: trailing bytes");
  return value;
}

function uint(reader, size) {
  const { view, at } = reader;
  reader.at += size;
  if (size === 1) return view.getUint8(at);
  if (size === 2) return view.getUint16(at);
  if (size === 4) return view.getUint32(at);
  return Number(view.getBigUint64(at));
}

function int(reader, size) {
  const { view, at } = reader;
  reader.at += size;
  if (size === 1) return view.getInt8(at);
  if (size === 2) return view.getInt16(at);
  if (size === 4) return view.getInt32(at);
  return Number(view.getBigInt64(at));
}

function text(reader, length) {
  const start = reader.view.byteOffset + reader.at;
  reader.at += length;
  return utf8Decoder.decode(new Uint8Array(reader.view.buffer, start, length));
}

function list(reader, length) {
  const items = [];
  for (let i = 0; i < length; i++) items.push(take(reader));
  return items;
}

function map(reader, length) {
  const result = {};
  for (let i = 0; i < length; i++) {
    const key = take(reader);
    if (typeof key !== "string") throw new Error("msgpack: a map key that is not text");
    result[key] = take(reader);
  }
  return result;
}

function take(reader) {
  const marker = uint(reader, 1);
  if (marker < 0x80) return marker;
  if (marker >= 0xe0) return marker - 0x100;
  if (marker >= 0xa0 && marker < 0xc0) return text(reader, marker & 0x1f);
  if (marker >= 0x90 && marker < 0xa0) return list(reader, marker & 0x0f);
  if (marker >= 0x80 && marker < 0x90) return map(reader, marker & 0x0f);
  switch (marker) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xca:
      reader.at += 4;
      return reader.view.getFloat32(reader.at - 4);
    case 0xcb:
      reader.at += 8;
      return reader.view.getFloat64(reader.at - 8);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
      return uint(reader, 1 << (marker - 0xcc));
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
      return int(reader, 1 << (marker - 0xd0));
    case 0xd9:
    case 0xda:
    case 0xdb:
      return text(reader, uint(reader, 1 << (marker - 0xd9)));
    case 0xdc:
    case 0xdd:
      return list(reader, uint(reader, 2 << (marker - 0xdc)));
    case 0xde:
    case 0xdf:
      return map(reader, uint(reader, 2 << (marker - 0xde)));
    default:
      throw new Error(`msgpack: unsupported type 0x${marker.toString(16)}`);
  }
}
