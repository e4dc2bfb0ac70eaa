//! The embedded log's file: a 16-byte file header, then records appended one
//! after another, each framed as `len: u32 LE | crc32: u32 LE | body` (the
//! CRC over the body). A group commit is one `write` of many records and one
//! `fdatasync`, so only the last, unacknowledged group can be torn by a
//! crash; opening the file drops such a torn tail.
//!
//! Bodies (integers little-endian, a game id prefixed by its length as one
//! byte, ids being at most 128 bytes):
//!
//! | kind | body after the kind byte |
//! | --- | --- |
//! | 1 create | game, header bytes (the rest) |
//! | 2 fence | game, `u64` new fence |
//! | 3 events | game, `u64` first seq, `u64` first feed seq, `u32` count, count × (`u32` len, payload) |

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use bytes::Bytes;

use crate::LogError;

pub(super) const MAGIC: &[u8; 8] = b"MAFIALOG";
pub(super) const VERSION: u32 = 1;
pub(super) const FILE_HEADER_LEN: u64 = 16;
/// The first bytes of a redb database file: the layout before this one.
pub(super) const REDB_MAGIC: &[u8; 4] = b"redb";

const FRAME_LEN: usize = 8;
const KIND_CREATE: u8 = 1;
const KIND_FENCE: u8 = 2;
const KIND_EVENTS: u8 = 3;

/// Where a payload lies in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loc {
    pub off: u64,
    pub len: u32,
}

pub(super) fn file_header() -> [u8; FILE_HEADER_LEN as usize] {
    let mut h = [0u8; FILE_HEADER_LEN as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h
}

/// Appends records to a buffer that will be written at file offset `base`.
pub(super) struct Encoder<'a> {
    pub buf: &'a mut Vec<u8>,
    pub base: u64,
}

impl Encoder<'_> {
    fn begin(&mut self, kind: u8, game: &str) -> usize {
        let start = self.buf.len();
        self.buf.extend_from_slice(&[0; FRAME_LEN]);
        self.buf.push(kind);
        // Game ids are validated to at most MAX_GAME_ID_LEN (128) bytes.
        self.buf.push(game.len() as u8);
        self.buf.extend_from_slice(game.as_bytes());
        start
    }

    fn finish(&mut self, start: usize) -> Result<(), LogError> {
        let body = &self.buf[start + FRAME_LEN..];
        let Ok(len) = u32::try_from(body.len()) else {
            self.buf.truncate(start);
            return Err(LogError::InvalidArgument(
                "an append of 4 GiB or more does not fit one record".into(),
            ));
        };
        let crc = crc32fast::hash(body);
        self.buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
        self.buf[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
        Ok(())
    }

    pub fn create(&mut self, game: &str, header: &[u8]) -> Result<(), LogError> {
        let start = self.begin(KIND_CREATE, game);
        self.buf.extend_from_slice(header);
        self.finish(start)
    }

    pub fn fence(&mut self, game: &str, fence: u64) -> Result<(), LogError> {
        let start = self.begin(KIND_FENCE, game);
        self.buf.extend_from_slice(&fence.to_le_bytes());
        self.finish(start)
    }

    /// Writes the record and pushes each payload's place to `locs`.
    pub fn events(
        &mut self,
        game: &str,
        first_seq: u64,
        first_feed: u64,
        payloads: &[Bytes],
        locs: &mut Vec<Loc>,
    ) -> Result<(), LogError> {
        let start = self.begin(KIND_EVENTS, game);
        self.buf.extend_from_slice(&first_seq.to_le_bytes());
        self.buf.extend_from_slice(&first_feed.to_le_bytes());
        self.buf
            .extend_from_slice(&(payloads.len() as u32).to_le_bytes());
        let pushed = locs.len();
        for p in payloads {
            let Ok(len) = u32::try_from(p.len()) else {
                self.buf.truncate(start);
                locs.truncate(pushed);
                return Err(LogError::InvalidArgument(
                    "a payload of 4 GiB or more does not fit one record".into(),
                ));
            };
            self.buf.extend_from_slice(&len.to_le_bytes());
            locs.push(Loc {
                off: self.base + self.buf.len() as u64,
                len,
            });
            self.buf.extend_from_slice(p);
        }
        self.finish(start).inspect_err(|_| locs.truncate(pushed))
    }
}

/// One decoded record; `Events` payloads as places in the file.
pub(super) enum Record<'a> {
    Create {
        game: &'a str,
        header: &'a [u8],
    },
    Fence {
        game: &'a str,
        fence: u64,
    },
    Events {
        game: &'a str,
        first_seq: u64,
        first_feed: u64,
        locs: Vec<Loc>,
    },
}

/// What reading the next record found.
pub(super) enum Next<'a> {
    Record(Record<'a>),
    /// The end of the records: the end of the file, or the zeros after them.
    End,
    /// An incomplete or corrupt record: a write the crash interrupted.
    Torn(&'static str),
}

/// Reads the file's records in order from just after the file header.
pub(super) struct Scanner<R> {
    reader: R,
    /// File offset of the next record.
    pub offset: u64,
    body: Vec<u8>,
}

impl<R: Read> Scanner<R> {
    pub fn new(reader: R) -> Self {
        Scanner {
            reader,
            offset: FILE_HEADER_LEN,
            body: Vec::new(),
        }
    }

    /// The next record; on `Record`, `offset` has moved past it.
    pub fn next(&mut self) -> io::Result<Next<'_>> {
        let mut frame = [0u8; FRAME_LEN];
        match read_full(&mut self.reader, &mut frame)? {
            0 => return Ok(Next::End),
            n if n < FRAME_LEN => return Ok(Next::Torn("a record frame cut short")),
            _ => {}
        }
        let len = u32::from_le_bytes(frame[..4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(frame[4..].try_into().expect("4 bytes"));
        // The file is zero-filled ahead of its records: an all-zero frame is
        // where they end.
        if len == 0 && crc == 0 {
            return Ok(Next::End);
        }
        // Every body has at least its kind and id length.
        if len < 2 {
            return Ok(Next::Torn("an empty record frame"));
        }
        self.body.clear();
        self.body.resize(len, 0);
        if read_full(&mut self.reader, &mut self.body)? < len {
            return Ok(Next::Torn("a record cut short"));
        }
        if crc32fast::hash(&self.body) != crc {
            return Ok(Next::Torn("a record whose checksum does not match"));
        }
        let body_off = self.offset + FRAME_LEN as u64;
        self.offset = body_off + len as u64;
        match decode(&self.body, body_off) {
            Some(r) => Ok(Next::Record(r)),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "record at offset {} has a valid checksum but cannot be decoded",
                    body_off - FRAME_LEN as u64
                ),
            )),
        }
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn decode(body: &[u8], body_off: u64) -> Option<Record<'_>> {
    let (&kind, rest) = body.split_first()?;
    let (&id_len, rest) = rest.split_first()?;
    let game = std::str::from_utf8(rest.get(..id_len as usize)?).ok()?;
    let rest = &rest[id_len as usize..];
    let u64_at = |b: &[u8], i: usize| -> Option<u64> {
        Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
    };
    match kind {
        KIND_CREATE => Some(Record::Create { game, header: rest }),
        KIND_FENCE if rest.len() == 8 => Some(Record::Fence {
            game,
            fence: u64_at(rest, 0)?,
        }),
        KIND_EVENTS => {
            let first_seq = u64_at(rest, 0)?;
            let first_feed = u64_at(rest, 8)?;
            let count = u32::from_le_bytes(rest.get(16..20)?.try_into().ok()?) as usize;
            let mut at = 20;
            let mut locs = Vec::with_capacity(count.min(rest.len() / 4));
            for _ in 0..count {
                let len = u32::from_le_bytes(rest.get(at..at + 4)?.try_into().ok()?);
                at += 4;
                rest.get(at..at + len as usize)?;
                let off = body_off + (body.len() - rest.len() + at) as u64;
                locs.push(Loc { off, len });
                at += len as usize;
            }
            (at == rest.len() && count > 0).then_some(Record::Events {
                game,
                first_seq,
                first_feed,
                locs,
            })
        }
        _ => None,
    }
}

/// Payloads that lie this close together are read with one `pread`.
const READ_GAP: u64 = 4096;
/// The most one `pread` reads for several payloads.
const READ_SPAN: u64 = 1 << 20;

/// The payloads at `locs` (in file order, as a game's events and the feed
/// are), neighbours read together.
pub(super) fn read_payloads(file: &File, locs: &[Loc]) -> io::Result<Vec<Bytes>> {
    let mut out = Vec::with_capacity(locs.len());
    let mut i = 0;
    while i < locs.len() {
        let start = locs[i].off;
        let mut end = start + u64::from(locs[i].len);
        let mut j = i + 1;
        while let Some(next) = locs.get(j) {
            let next_end = next.off + u64::from(next.len);
            if next.off < end || next.off - end > READ_GAP || next_end - start > READ_SPAN {
                break;
            }
            end = next_end;
            j += 1;
        }
        let mut buf = vec![0u8; (end - start) as usize];
        file.read_exact_at(&mut buf, start)?;
        let buf = Bytes::from(buf);
        for loc in &locs[i..j] {
            let at = (loc.off - start) as usize;
            out.push(buf.slice(at..at + loc.len as usize));
        }
        i = j;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(f: impl FnOnce(&mut Encoder<'_>, &mut Vec<Loc>)) -> (Vec<u8>, Vec<Loc>) {
        let mut buf = file_header().to_vec();
        let mut locs = Vec::new();
        let mut enc = Encoder {
            buf: &mut Vec::new(),
            base: FILE_HEADER_LEN,
        };
        f(&mut enc, &mut locs);
        buf.extend_from_slice(enc.buf);
        (buf, locs)
    }

    #[test]
    fn records_read_back_as_written_with_payload_places() {
        let payloads = [Bytes::from("one"), Bytes::from(""), Bytes::from("three")];
        let (file, locs) = encoded(|e, locs| {
            e.create("g", b"header").unwrap();
            e.fence("g", 7).unwrap();
            e.events("g", 1, 1, &payloads, locs).unwrap();
        });
        for (loc, p) in locs.iter().zip(&payloads) {
            let at = loc.off as usize;
            assert_eq!(&file[at..at + loc.len as usize], &p[..]);
        }
        let mut s = Scanner::new(&file[FILE_HEADER_LEN as usize..]);
        assert!(matches!(
            s.next().unwrap(),
            Next::Record(Record::Create {
                game: "g",
                header: b"header"
            })
        ));
        assert!(matches!(
            s.next().unwrap(),
            Next::Record(Record::Fence {
                game: "g",
                fence: 7
            })
        ));
        match s.next().unwrap() {
            Next::Record(Record::Events {
                game: "g",
                first_seq: 1,
                first_feed: 1,
                locs: got,
            }) => assert_eq!(got, locs),
            _ => panic!("expected the events record"),
        }
        assert!(matches!(s.next().unwrap(), Next::End));
        assert_eq!(s.offset, file.len() as u64);
    }

    #[test]
    fn a_record_cut_anywhere_or_flipped_reads_as_torn_and_zeros_as_the_end() {
        let (file, _) = encoded(|e, locs| {
            e.events("g", 1, 1, &[Bytes::from("payload")], locs)
                .unwrap();
        });
        let body = &file[FILE_HEADER_LEN as usize..];
        for cut in 1..body.len() {
            let mut s = Scanner::new(&body[..cut]);
            assert!(matches!(s.next().unwrap(), Next::Torn(_)), "cut at {cut}");
        }
        let zeros = [0u8; 64];
        assert!(matches!(
            Scanner::new(&zeros[..]).next().unwrap(),
            Next::End
        ));
        let mut zero_len = [0u8; 64];
        zero_len[4] = 1;
        assert!(matches!(
            Scanner::new(&zero_len[..]).next().unwrap(),
            Next::Torn(_)
        ));
        let mut flipped = body.to_vec();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(matches!(
            Scanner::new(&flipped[..]).next().unwrap(),
            Next::Torn(_)
        ));
    }
}
