// gRPC-web for the gateway's pages (the judge console, the tournament
// office): protobuf encoded and decoded over the generated SCHEMA
// (console_proto.js, made by crates/proto/src/browser.rs), and calls to
// the referee or the scoring service, unary or streaming, in the
// grpc-web+proto framing. No page hard-codes a field number.
"use strict";
import { SCHEMA, ENUMS } from "./console_proto.js";

// ---------------------------------------------------------------- protobuf
const enc = new TextEncoder(), dec = new TextDecoder();
const VARINTS = new Set(["uint32", "uint64", "int32", "int64", "bool", "enum"]);

function varint(out, v) {
  let n = BigInt.asUintN(64, BigInt(v));
  while (n >= 0x80n) { out.push(Number(n & 0x7fn) | 0x80); n >>= 7n; }
  out.push(Number(n));
}
function lengthDelimited(out, no, bytes) {
  varint(out, (no << 3) | 2); varint(out, bytes.length);
  for (const b of bytes) out.push(b);
}
function scalarOut(ty, sub, x) {
  if (ty === "bool") return x ? 1 : 0;
  if (ty === "enum") return typeof x === "string" ? ENUMS[sub][x] : x;
  return x;
}
function isDefault(ty, x) {
  return x === 0 || x === 0n || x === false || x === "" || (ty === "enum" && x === 0);
}
function writeMessage(out, type, obj) {
  for (const [no, name, ty, sub, rep, oneof, opt] of SCHEMA[type]) {
    const v = obj[name];
    if (v === undefined || v === null) continue;
    if (rep && VARINTS.has(ty)) {
      if (!v.length) continue;
      const packed = [];
      for (const x of v) varint(packed, scalarOut(ty, sub, x));
      lengthDelimited(out, no, packed);
      continue;
    }
    for (const x of rep ? v : [v]) {
      if (!rep && !oneof && !opt && ty !== "message" && isDefault(ty, x)) continue;
      if (ty === "message") { const inner = []; writeMessage(inner, sub, x); lengthDelimited(out, no, inner); }
      else if (ty === "string") lengthDelimited(out, no, enc.encode(x));
      else if (ty === "bytes") lengthDelimited(out, no, x);
      else { varint(out, no << 3); varint(out, scalarOut(ty, sub, x)); }
    }
  }
}
export function encode(type, obj) { const out = []; writeMessage(out, type, obj); return Uint8Array.from(out); }

class Reader {
  constructor(u8) { this.u8 = u8; this.p = 0; }
  varint() {
    let r = 0n, s = 0n;
    for (;;) {
      if (this.p >= this.u8.length) throw new Error("truncated varint");
      const b = this.u8[this.p++];
      r |= BigInt(b & 0x7f) << s;
      if (!(b & 0x80)) return r;
      s += 7n;
    }
  }
  take(n) { const s = this.u8.subarray(this.p, this.p + n); this.p += n; return s; }
}
function scalarIn(ty, v) {
  switch (ty) {
    case "bool": return v !== 0n;
    case "int32": return Number(BigInt.asIntN(32, v));
    case "int64": return Number(BigInt.asIntN(64, v));
    default: return Number(v);
  }
}
function defaultOf(ty) { return ty === "string" ? "" : ty === "bool" ? false : ty === "bytes" ? new Uint8Array() : ty === "message" ? null : 0; }
export function decode(type, u8) {
  const fields = {}, out = {};
  for (const f of SCHEMA[type]) {
    const [no, name, ty, , rep, oneof, opt] = f;
    fields[no] = f;
    if (rep) out[name] = [];
    else if (!oneof && !opt) out[name] = defaultOf(ty);
  }
  const r = new Reader(u8);
  while (r.p < u8.length) {
    const key = Number(r.varint()), no = key >>> 3, wt = key & 7;
    const f = fields[no];
    const put = (v) => { if (f[4]) out[f[1]].push(v); else out[f[1]] = v; };
    if (wt === 0) { const v = r.varint(); if (f) put(scalarIn(f[2], v)); }
    else if (wt === 2) {
      const bytes = r.take(Number(r.varint()));
      if (!f) continue;
      if (f[2] === "message") put(decode(f[3], bytes));
      else if (f[2] === "string") put(dec.decode(bytes));
      else if (f[2] === "bytes") put(bytes.slice());
      else { const inner = new Reader(bytes); while (inner.p < bytes.length) put(scalarIn(f[2], inner.varint())); }
    } else if (wt === 1) r.take(8);
    else if (wt === 5) r.take(4);
    else throw new Error("unknown wire type " + wt);
  }
  return out;
}

// ---------------------------------------------------------------- gRPC-web
// The connection failed or went silent: worth trying again.
export class NetError extends Error {}
// The service answered with a non-zero grpc-status.
export class GrpcError extends Error { constructor(code, message) { super(message); this.code = code; } }
export const CODES = {
  INVALID_ARGUMENT: 3, NOT_FOUND: 5, ALREADY_EXISTS: 6, PERMISSION_DENIED: 7,
  FAILED_PRECONDITION: 9, UNIMPLEMENTED: 12, UNAVAILABLE: 14, UNAUTHENTICATED: 16,
};

function frame(parts) {
  const total = parts.reduce((a, p) => a + 5 + p.length, 0);
  const body = new Uint8Array(total), view = new DataView(body.buffer);
  let o = 0;
  for (const p of parts) { body[o] = 0; view.setUint32(o + 1, p.length); body.set(p, o + 5); o += 5 + p.length; }
  return body;
}
function trailers(text) {
  const t = {};
  for (const line of text.split("\r\n")) { const i = line.indexOf(":"); if (i > 0) t[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim(); }
  return t;
}
export function methodUrl(baseUrl, service, method) {
  return String(baseUrl || "").replace(/\/$/, "") + "/mafia.v1." + service + "/" + method;
}
// One call: `msgs` as the request body; each reply message to `onMessage`
// as it arrives. Resolves on grpc-status 0, else throws GrpcError (the
// service's answer) or NetError (no answer). A call that hears nothing for
// `silenceMs` is given up: a hall's Wi-Fi can drop a connection without
// closing it, and a fetch has no deadline of its own.
export async function stream(baseUrl, service, method, reqType, msgs, respType, token, onMessage, opts = {}) {
  const silenceMs = opts.silenceMs || 15000;
  const ctrl = new AbortController();
  let silence = null;
  const heard = () => {
    clearTimeout(silence);
    const why = opts.silentText ? opts.silentText(silenceMs) : "no answer for " + silenceMs / 1000 + " s";
    silence = setTimeout(() => ctrl.abort(new NetError(why)), silenceMs);
  };
  heard();
  try {
    return await fetchCall(methodUrl(baseUrl, service, method), reqType, msgs, respType, token, onMessage, ctrl.signal, heard);
  } finally { clearTimeout(silence); }
}
async function fetchCall(url, reqType, msgs, respType, token, onMessage, signal, heard) {
  let resp;
  const headers = { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" };
  if (token) headers.authorization = "Bearer " + token;
  try {
    resp = await fetch(url, { method: "POST", headers, body: frame(msgs.map((m) => encode(reqType, m))), cache: "no-store", signal });
  } catch (e) { throw new NetError(String(e.message || e)); }
  heard();
  if (!resp.ok) throw new NetError("HTTP " + resp.status);
  let status = resp.headers.get("grpc-status"), message = resp.headers.get("grpc-message") || "";
  let buf = new Uint8Array(0);
  try {
    const reader = resp.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      heard();
      if (value) {
        const next = new Uint8Array(buf.length + value.length); next.set(buf); next.set(value, buf.length); buf = next;
        while (buf.length >= 5) {
          const len = new DataView(buf.buffer, buf.byteOffset).getUint32(1);
          if (buf.length < 5 + len) break;
          const flag = buf[0], payload = buf.slice(5, 5 + len);
          buf = buf.slice(5 + len);
          if (flag & 0x80) { const t = trailers(dec.decode(payload)); status = t["grpc-status"]; message = t["grpc-message"] || ""; }
          else onMessage(decode(respType, payload));
        }
      }
      if (done) break;
    }
  } catch (e) { if (e instanceof GrpcError) throw e; throw new NetError(String(e.message || e)); }
  if (status === null || status === undefined) throw new NetError("the reply was cut off");
  if (status !== "0") throw new GrpcError(Number(status), decodeURIComponent(message));
}
// One request, one reply.
export async function call(baseUrl, service, method, reqType, msg, respType, token, opts) {
  let out = null;
  await stream(baseUrl, service, method, reqType, [msg], respType, token, (m) => { out = m; }, opts);
  return out;
}
