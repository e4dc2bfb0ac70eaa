//! RFC 6455 frames as the gateway's server side needs them: whole,
//! unmasked frames out (so one encoding serves every subscriber of a
//! message), and the client's masked frames in, assembled into messages
//! with the size limits and close codes of FEED.md.

use bytes::{BufMut, Bytes, BytesMut};

const FIN: u8 = 0x80;
const OP_CONTINUATION: u8 = 0x0;
const OP_TEXT: u8 = 0x1;
const OP_BINARY: u8 = 0x2;
const OP_CLOSE: u8 = 0x8;
const OP_PING: u8 = 0x9;
const OP_PONG: u8 = 0xA;

/// Close codes (RFC 6455 §7.4.1).
pub const PROTOCOL_ERROR: u16 = 1002;
pub const INVALID_PAYLOAD: u16 = 1007;
pub const POLICY_VIOLATION: u16 = 1008;
pub const TOO_BIG: u16 = 1009;

/// The most a frame header takes: 2 bytes, an 8-byte length, no mask.
const MAX_HEADER: usize = 10;

fn frame(opcode: u8, payload: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(MAX_HEADER + payload.len());
    put_frame(&mut out, opcode, payload);
    out.freeze()
}

fn put_frame(out: &mut BytesMut, opcode: u8, payload: &[u8]) {
    out.put_u8(FIN | opcode);
    match payload.len() {
        n @ 0..=125 => out.put_u8(n as u8),
        n @ 126..=0xFFFF => {
            out.put_u8(126);
            out.put_u16(n as u16);
        }
        n => {
            out.put_u8(127);
            out.put_u64(n as u64);
        }
    }
    out.put_slice(payload);
}

/// A whole text frame. The payload must be UTF-8; the gateway only
/// frames JSON it encoded itself, so it is not checked again.
pub fn text(payload: &[u8]) -> Bytes {
    frame(OP_TEXT, payload)
}

/// Whole text frames, one per payload, back to back in one buffer: what a
/// connection takes in one write.
pub fn texts(payloads: &[Bytes]) -> Bytes {
    if let [one] = payloads {
        return text(one);
    }
    let len = payloads.iter().map(|p| MAX_HEADER + p.len()).sum();
    let mut out = BytesMut::with_capacity(len);
    for p in payloads {
        put_frame(&mut out, OP_TEXT, p);
    }
    out.freeze()
}

/// A whole binary frame (the Autobahn echo endpoint's, `echo.rs`).
pub fn binary(payload: &[u8]) -> Bytes {
    frame(OP_BINARY, payload)
}

pub fn ping() -> Bytes {
    frame(OP_PING, &[])
}

pub fn pong(payload: &[u8]) -> Bytes {
    frame(OP_PONG, payload)
}

/// A close frame; the reason is cut to fit a control frame's 125 bytes.
pub fn close(code: u16, reason: &str) -> Bytes {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let mut payload = Vec::with_capacity(2 + end);
    payload.extend_from_slice(&code.to_be_bytes());
    payload.extend_from_slice(&reason.as_bytes()[..end]);
    frame(OP_CLOSE, &payload)
}

/// A message from the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    Text(Bytes),
    Binary(Bytes),
    Ping(Bytes),
    Pong(Bytes),
    /// The close code and reason, if the client gave one.
    Close(Option<(u16, String)>),
}

/// A client that broke the protocol: the close code it gets, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{why} (close {code})")]
pub struct Violation {
    pub code: u16,
    pub why: &'static str,
}

fn protocol(why: &'static str) -> Violation {
    Violation {
        code: PROTOCOL_ERROR,
        why,
    }
}

fn not_utf8() -> Violation {
    Violation {
        code: INVALID_PAYLOAD,
        why: "text message not UTF-8",
    }
}

/// Checks text that is UTF-8 in its first `from` bytes as far as it goes:
/// how many bytes are whole valid characters. A character cut at the end
/// may still be completed by what follows; a sequence nothing can complete
/// is refused at once (RFC 6455 §8.1: fail fast), not when the message ends.
fn utf8_so_far(text: &[u8], from: usize) -> Result<usize, Violation> {
    match std::str::from_utf8(&text[from..]) {
        Ok(_) => Ok(text.len()),
        Err(e) if e.error_len().is_none() => Ok(from + e.valid_up_to()),
        Err(_) => Err(not_utf8()),
    }
}

/// A fragmented message so far.
#[derive(Debug)]
struct Fragmented {
    opcode: u8,
    payload: Vec<u8>,
    /// Of a text message, the bytes checked as whole UTF-8 characters.
    checked: usize,
}

/// Reads the client's side of the stream. Holds bytes only while a frame
/// or a fragmented message is incomplete: an idle connection's decoder
/// owns no buffer.
#[derive(Debug)]
pub struct Decoder {
    max_message: usize,
    /// Bytes of an incomplete frame.
    partial: Vec<u8>,
    /// A fragmented message so far.
    message: Option<Fragmented>,
    /// Of the incomplete text frame in `partial`, the payload bytes checked
    /// as UTF-8 (with the text before it), so each is checked once.
    partial_checked: usize,
    /// A breach that came after messages in the same bytes: those are
    /// handled first, as the frames came, then the connection fails.
    failed: Option<Violation>,
}

impl Decoder {
    /// `max_message` bounds a frame and an assembled message alike.
    pub fn new(max_message: usize) -> Decoder {
        Decoder {
            max_message,
            partial: Vec::new(),
            message: None,
            partial_checked: 0,
            failed: None,
        }
    }

    /// Takes bytes read from the socket; appends each message they
    /// complete to `out`. A breach after some of them is kept for
    /// [`Decoder::failed`] and `Ok` returned, so the caller handles the
    /// messages that came before it; every later call returns it.
    pub fn feed(&mut self, data: &[u8], out: &mut Vec<Incoming>) -> Result<(), Violation> {
        if let Some(v) = self.failed {
            return Err(v);
        }
        let before = out.len();
        match self.feed_frames(data, out) {
            Err(v) if out.len() > before => {
                self.failed = Some(v);
                self.partial = Vec::new();
                self.message = None;
                Ok(())
            }
            result => result,
        }
    }

    /// The breach [`Decoder::feed`] found after messages it returned.
    pub fn failed(&self) -> Option<Violation> {
        self.failed
    }

    fn feed_frames(&mut self, data: &[u8], out: &mut Vec<Incoming>) -> Result<(), Violation> {
        if self.partial.is_empty() {
            let used = self.frames(data, out)?;
            self.partial.extend_from_slice(&data[used..]);
        } else {
            let mut buf = std::mem::take(&mut self.partial);
            buf.extend_from_slice(data);
            let used = self.frames(&buf, out)?;
            if used < buf.len() {
                buf.drain(..used);
                self.partial = buf;
            }
        }
        Ok(())
    }

    /// Decodes every whole frame at the start of `data`; returns the
    /// bytes used.
    fn frames(&mut self, data: &[u8], out: &mut Vec<Incoming>) -> Result<usize, Violation> {
        let mut at = 0;
        while let Some(used) = self.frame(&data[at..], out)? {
            at += used;
        }
        Ok(at)
    }

    fn frame(&mut self, data: &[u8], out: &mut Vec<Incoming>) -> Result<Option<usize>, Violation> {
        if data.len() < 2 {
            return Ok(None);
        }
        let (b0, b1) = (data[0], data[1]);
        if b0 & 0x70 != 0 {
            return Err(protocol("reserved bits set"));
        }
        if b1 & 0x80 == 0 {
            return Err(protocol("unmasked client frame"));
        }
        let fin = b0 & FIN != 0;
        let opcode = b0 & 0x0F;
        let (len, mut at) = match b1 & 0x7F {
            126 if data.len() >= 4 => (u16::from_be_bytes([data[2], data[3]]) as u64, 4),
            127 if data.len() >= 10 => {
                let mut n = [0; 8];
                n.copy_from_slice(&data[2..10]);
                (u64::from_be_bytes(n), 10)
            }
            126 | 127 => return Ok(None),
            n => (n as u64, 2),
        };
        // RFC 6455 §5.2: a 64-bit length's most significant bit must be 0;
        // one set is a broken frame (1002), not merely a large one (1009).
        if len >> 63 != 0 {
            return Err(protocol("64-bit length with its top bit set"));
        }
        let control = opcode & 0x8 != 0;
        if control && (!fin || len > 125) {
            return Err(protocol("fragmented or long control frame"));
        }
        if len > self.max_message as u64 {
            return Err(Violation {
                code: TOO_BIG,
                why: "frame over the size limit",
            });
        }
        let len = len as usize;
        if data.len() < at + 4 + len {
            if data.len() >= at + 4 && self.is_text(opcode) {
                let mask = [data[at], data[at + 1], data[at + 2], data[at + 3]];
                self.check_partial_text(&data[at + 4..], mask)?;
            }
            return Ok(None);
        }
        self.partial_checked = 0;
        let mask = [data[at], data[at + 1], data[at + 2], data[at + 3]];
        at += 4;
        let mut payload = data[at..at + len].to_vec();
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i & 3];
        }
        at += len;
        match opcode {
            OP_PING => out.push(Incoming::Ping(payload.into())),
            OP_PONG => out.push(Incoming::Pong(payload.into())),
            OP_CLOSE => out.push(Incoming::Close(close_payload(&payload)?)),
            OP_TEXT | OP_BINARY => {
                if self.message.is_some() {
                    return Err(protocol("new message inside a fragmented one"));
                }
                let m = Fragmented {
                    opcode,
                    payload,
                    checked: 0,
                };
                self.fragment(m, fin, out)?;
            }
            OP_CONTINUATION => {
                let Some(mut m) = self.message.take() else {
                    return Err(protocol("continuation without a message"));
                };
                if m.payload.len() + payload.len() > self.max_message {
                    return Err(Violation {
                        code: TOO_BIG,
                        why: "message over the size limit",
                    });
                }
                m.payload.extend_from_slice(&payload);
                self.fragment(m, fin, out)?;
            }
            _ => return Err(protocol("unknown opcode")),
        }
        Ok(Some(at))
    }
}

impl Decoder {
    /// Whether a data frame with `opcode` carries text: a text frame, or a
    /// continuation of a text message.
    fn is_text(&self, opcode: u8) -> bool {
        match (&self.message, opcode) {
            (None, OP_TEXT) => true,
            (Some(m), OP_CONTINUATION) => m.opcode == OP_TEXT,
            _ => false,
        }
    }

    /// Checks the payload of a text frame still arriving (`payload`, masked
    /// with `mask`, as much as has come), from where the last look stopped.
    fn check_partial_text(&mut self, payload: &[u8], mask: [u8; 4]) -> Result<(), Violation> {
        let from = self.partial_checked;
        // A character the message so far ends in may go on in this frame.
        let cut: &[u8] = match &self.message {
            Some(m) if from == 0 => &m.payload[m.checked..],
            _ => &[],
        };
        let mut text = Vec::with_capacity(cut.len() + payload.len() - from);
        text.extend_from_slice(cut);
        let unmasked = payload[from..].iter().enumerate();
        text.extend(unmasked.map(|(i, b)| b ^ mask[(from + i) & 3]));
        let valid = utf8_so_far(&text, 0)?;
        self.partial_checked = from + valid.saturating_sub(cut.len());
        Ok(())
    }

    /// Takes a data frame's payload added to `m`: the message when `fin`,
    /// else kept for the next fragment. Text is checked as it comes.
    fn fragment(
        &mut self,
        mut m: Fragmented,
        fin: bool,
        out: &mut Vec<Incoming>,
    ) -> Result<(), Violation> {
        if m.opcode == OP_TEXT {
            m.checked = utf8_so_far(&m.payload, m.checked)?;
            if fin && m.checked < m.payload.len() {
                return Err(not_utf8());
            }
        }
        if !fin {
            self.message = Some(m);
        } else if m.opcode == OP_TEXT {
            out.push(Incoming::Text(m.payload.into()));
        } else {
            out.push(Incoming::Binary(m.payload.into()));
        }
        Ok(())
    }
}

fn close_payload(p: &[u8]) -> Result<Option<(u16, String)>, Violation> {
    match p {
        [] => Ok(None),
        [_] => Err(protocol("one-byte close payload")),
        [hi, lo, reason @ ..] => {
            let reason = std::str::from_utf8(reason).map_err(|_| Violation {
                code: INVALID_PAYLOAD,
                why: "close reason not UTF-8",
            })?;
            let code = u16::from_be_bytes([*hi, *lo]);
            if !close_code_allowed(code) {
                return Err(protocol("invalid close code"));
            }
            Ok(Some((code, reason.to_owned())))
        }
    }
}

/// Whether a peer may send `code` in a close frame (RFC 6455 §7.4.1 and
/// §7.4.2, the IANA registry as Autobahn's cases 7.7 and 7.9 read it): the
/// defined codes but 1004 (reserved), 1005, 1006 and 1015 (never on the
/// wire), and the application and private range 3000-4999. Anything else
/// fails the connection with 1002, so a code the server echoes is always
/// one it may send.
pub fn close_code_allowed(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1011 | 3000..=4999)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
    use tokio_tungstenite::tungstenite::protocol::frame::{Frame, FrameHeader};
    use tokio_tungstenite::tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
    use tokio_tungstenite::tungstenite::Message;

    /// What tungstenite, as a client, reads from `bytes`.
    fn read_as_client(bytes: &[u8]) -> Vec<Message> {
        let config = WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        let mut ws =
            WebSocket::from_raw_socket(Cursor::new(bytes.to_vec()), Role::Client, Some(config));
        let mut out = Vec::new();
        while let Ok(m) = ws.read() {
            out.push(m);
        }
        out
    }

    #[test]
    fn frames_written_back_to_back_are_read_as_their_messages_in_order() {
        let payloads: Vec<Bytes> = ["{}", &"x".repeat(200), &"y".repeat(70_000), "z"]
            .iter()
            .map(|p| Bytes::copy_from_slice(p.as_bytes()))
            .collect();
        let got = read_as_client(&texts(&payloads));
        let want: Vec<Message> = payloads
            .iter()
            .map(|p| Message::text(std::str::from_utf8(p).unwrap()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(texts(&payloads[1..2]), text(&payloads[1]));
    }

    /// A masked client frame, as tungstenite formats it.
    fn client_frame(data: &[u8], opcode: OpCode, fin: bool) -> Vec<u8> {
        let header = FrameHeader {
            is_final: fin,
            opcode,
            mask: Some([0x12, 0x34, 0x56, 0x78]),
            ..FrameHeader::default()
        };
        let f = Frame::from_payload(header, Bytes::copy_from_slice(data));
        let mut out = Vec::new();
        f.format(&mut out).unwrap();
        out
    }

    fn decode(bytes: &[u8], max: usize) -> Result<Vec<Incoming>, Violation> {
        let mut d = Decoder::new(max);
        let mut out = Vec::new();
        d.feed(bytes, &mut out)?;
        match d.failed() {
            Some(v) => Err(v),
            None => Ok(out),
        }
    }

    #[test]
    fn text_frames_of_every_length_class_read_back_in_tungstenite() {
        for len in [0, 1, 125, 126, 127, 0xFFFF, 0x1_0000, 3 << 20] {
            let body = "x".repeat(len);
            let got = read_as_client(&text(body.as_bytes()));
            assert_eq!(got, vec![Message::Text(body.into())], "length {len}");
        }
    }

    #[test]
    fn control_frames_read_back_in_tungstenite() {
        let mut all = Vec::new();
        all.extend_from_slice(&ping());
        all.extend_from_slice(&pong(b"abc"));
        all.extend_from_slice(&close(1001, "server shutting down"));
        let got = read_as_client(&all);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], Message::Ping(Bytes::new()));
        assert_eq!(got[1], Message::Pong(Bytes::from_static(b"abc")));
        let Message::Close(Some(c)) = &got[2] else {
            panic!("{:?}", got[2]);
        };
        assert_eq!(
            (u16::from(c.code), c.reason.as_str()),
            (1001, "server shutting down")
        );
    }

    #[test]
    fn a_long_close_reason_is_cut_at_a_character_boundary() {
        let reason = "é".repeat(100);
        let f = close(1000, &reason);
        assert!(f.len() <= 2 + 125);
        let got = decode_unmasked_close(&f);
        assert!(got.1.chars().all(|c| c == 'é'));
        assert_eq!(got.0, 1000);
    }

    fn decode_unmasked_close(f: &[u8]) -> (u16, String) {
        let (header, len) = FrameHeader::parse(&mut Cursor::new(f)).unwrap().unwrap();
        assert!(header.mask.is_none());
        let p = &f[f.len() - len as usize..];
        close_payload(p).unwrap().unwrap()
    }

    #[test]
    fn client_messages_decode_whole_and_fragmented() {
        let mut bytes = client_frame(b"{\"type\":", OpCode::Data(Data::Text), false);
        bytes.extend(client_frame(
            b"\"ping\"",
            OpCode::Data(Data::Continue),
            false,
        ));
        // A control frame may come between the fragments.
        bytes.extend(client_frame(b"p", OpCode::Control(Control::Ping), true));
        bytes.extend(client_frame(b"}", OpCode::Data(Data::Continue), true));
        bytes.extend(client_frame(b"\x01\x02", OpCode::Data(Data::Binary), true));
        bytes.extend(client_frame(b"", OpCode::Control(Control::Pong), true));
        let want = vec![
            Incoming::Ping(Bytes::from_static(b"p")),
            Incoming::Text(Bytes::from_static(b"{\"type\":\"ping\"}")),
            Incoming::Binary(Bytes::from_static(b"\x01\x02")),
            Incoming::Pong(Bytes::new()),
        ];
        assert_eq!(decode(&bytes, 1 << 16).unwrap(), want);
        // Byte by byte, the same messages.
        let mut d = Decoder::new(1 << 16);
        let mut out = Vec::new();
        for b in &bytes {
            d.feed(std::slice::from_ref(b), &mut out).unwrap();
        }
        assert_eq!(out, want);
        assert!(d.partial.is_empty() && d.message.is_none());
    }

    #[test]
    fn large_client_messages_decode_up_to_the_limit_and_not_beyond() {
        let body = vec![b'a'; 70_000];
        let bytes = client_frame(&body, OpCode::Data(Data::Text), true);
        let got = decode(&bytes, 70_000).unwrap();
        assert_eq!(got, vec![Incoming::Text(body.clone().into())]);
        assert_eq!(decode(&bytes, 69_999).unwrap_err().code, TOO_BIG);
        // Fragments that add up to more than the limit.
        let mut parts = client_frame(&body[..40_000], OpCode::Data(Data::Text), false);
        parts.extend(client_frame(
            &body[40_000..],
            OpCode::Data(Data::Continue),
            true,
        ));
        assert_eq!(decode(&parts, 69_999).unwrap_err().code, TOO_BIG);
        assert_eq!(decode(&parts, 70_000).unwrap().len(), 1);
    }

    #[test]
    fn an_oversized_frame_is_refused_from_its_header_alone() {
        let bytes = client_frame(&vec![0; 100_000], OpCode::Data(Data::Binary), true);
        // Only the header has arrived.
        assert_eq!(decode(&bytes[..14], 65_536).unwrap_err().code, TOO_BIG);
    }

    #[test]
    fn protocol_breaches_are_refused_with_their_close_codes() {
        let unmasked = text(b"hi");
        assert_eq!(decode(&unmasked, 1024).unwrap_err().code, PROTOCOL_ERROR);
        let orphan = client_frame(b"x", OpCode::Data(Data::Continue), true);
        assert_eq!(decode(&orphan, 1024).unwrap_err().code, PROTOCOL_ERROR);
        let long_ping = client_frame(&[0; 126], OpCode::Control(Control::Ping), true);
        assert_eq!(decode(&long_ping, 1024).unwrap_err().code, PROTOCOL_ERROR);
        let bad_utf8 = client_frame(b"\xff", OpCode::Data(Data::Text), true);
        assert_eq!(decode(&bad_utf8, 1024).unwrap_err().code, INVALID_PAYLOAD);
        let mut nested = client_frame(b"a", OpCode::Data(Data::Text), false);
        nested.extend(client_frame(b"b", OpCode::Data(Data::Text), true));
        assert_eq!(decode(&nested, 1024).unwrap_err().code, PROTOCOL_ERROR);
    }

    #[test]
    fn a_close_code_that_may_not_be_sent_fails_the_connection_with_1002() {
        for code in [
            0u16, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 1100, 2000, 2999, 5000,
            65535,
        ] {
            let bytes = client_frame(&code.to_be_bytes(), OpCode::Control(Control::Close), true);
            assert_eq!(
                decode(&bytes, 1024).unwrap_err().code,
                PROTOCOL_ERROR,
                "close code {code}"
            );
        }
        for code in [
            1000u16, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999,
        ] {
            let bytes = client_frame(&code.to_be_bytes(), OpCode::Control(Control::Close), true);
            assert_eq!(
                decode(&bytes, 1024).unwrap(),
                vec![Incoming::Close(Some((code, String::new())))],
                "close code {code}"
            );
        }
    }

    #[test]
    fn a_64_bit_length_with_its_top_bit_set_is_a_protocol_error_not_too_big() {
        let mut bytes = vec![0x82, 0xFF];
        bytes.extend_from_slice(&(1u64 << 63 | 5).to_be_bytes());
        bytes.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(decode(&bytes, 1024).unwrap_err().code, PROTOCOL_ERROR);
        // Without the top bit, a length over the limit is still 1009.
        let mut bytes = vec![0x82, 0xFF];
        bytes.extend_from_slice(&(1u64 << 62).to_be_bytes());
        assert_eq!(decode(&bytes, 1024).unwrap_err().code, TOO_BIG);
    }

    #[test]
    fn a_client_close_gives_its_code_and_reason() {
        let mut payload = 4000u16.to_be_bytes().to_vec();
        payload.extend_from_slice(b"bye");
        let bytes = client_frame(&payload, OpCode::Control(Control::Close), true);
        assert_eq!(
            decode(&bytes, 1024).unwrap(),
            vec![Incoming::Close(Some((4000, "bye".into())))]
        );
        let empty = client_frame(b"", OpCode::Control(Control::Close), true);
        assert_eq!(decode(&empty, 1024).unwrap(), vec![Incoming::Close(None)]);
    }

    #[test]
    fn messages_before_a_breach_come_out_and_the_breach_after_them() {
        let mut bytes = client_frame(b"p", OpCode::Control(Control::Ping), true);
        bytes.extend(client_frame(b"x", OpCode::Data(Data::Continue), true));
        let mut d = Decoder::new(1024);
        let mut out = Vec::new();
        d.feed(&bytes, &mut out).unwrap();
        assert_eq!(out, vec![Incoming::Ping(Bytes::from_static(b"p"))]);
        assert_eq!(d.failed().map(|v| v.code), Some(PROTOCOL_ERROR));
        // Nothing after the breach is read.
        let more = client_frame(b"q", OpCode::Control(Control::Ping), true);
        assert_eq!(d.feed(&more, &mut out).unwrap_err().code, PROTOCOL_ERROR);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn text_is_checked_as_it_comes_and_a_character_may_span_fragments_and_reads() {
        let text = "κόσμε-€-𤭢".as_bytes();
        // Cut inside characters: fragments of 3 bytes, fed a byte at a time.
        let chunks: Vec<&[u8]> = text.chunks(3).collect();
        let mut bytes = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            let op = if i == 0 { Data::Text } else { Data::Continue };
            bytes.extend(client_frame(c, OpCode::Data(op), i + 1 == chunks.len()));
        }
        let mut d = Decoder::new(1024);
        let mut out = Vec::new();
        for b in &bytes {
            d.feed(std::slice::from_ref(b), &mut out).unwrap();
        }
        assert_eq!(out, vec![Incoming::Text(Bytes::copy_from_slice(text))]);
        // A message that ends inside a character is refused.
        let mut cut = client_frame(&text[..2], OpCode::Data(Data::Text), false);
        cut.extend(client_frame(
            &text[2..3],
            OpCode::Data(Data::Continue),
            true,
        ));
        assert_eq!(decode(&cut, 1024).unwrap_err().code, INVALID_PAYLOAD);
    }

    #[test]
    fn invalid_text_is_refused_before_its_frame_or_message_is_whole() {
        let mut fragment = client_frame(b"ok", OpCode::Data(Data::Text), false);
        fragment.extend(client_frame(
            b"\xf4\x90",
            OpCode::Data(Data::Continue),
            false,
        ));
        assert_eq!(decode(&fragment, 1024).unwrap_err().code, INVALID_PAYLOAD);
        let mut long = b"ok".to_vec();
        long.extend_from_slice(b"\xed\xa0\x80");
        long.resize(100, b'a');
        let frame = client_frame(&long, OpCode::Data(Data::Text), true);
        // The header, the mask and five bytes of the payload.
        let mut d = Decoder::new(1024);
        let mut out = Vec::new();
        d.feed(&frame[..2 + 4 + 2], &mut out).unwrap();
        let err = d.feed(&frame[2 + 4 + 2..2 + 4 + 5], &mut out).unwrap_err();
        assert_eq!(err.code, INVALID_PAYLOAD);
    }
}
