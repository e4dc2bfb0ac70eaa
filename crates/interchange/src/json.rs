//! Reading JSON values by path, so that every shape error names where it is.

use crate::error::SourceError;
use serde_json::Value;

/// Parses text as JSON; a syntax error names its line and column.
pub fn parse(text: &str) -> Result<Value, SourceError> {
    serde_json::from_str(text).map_err(|e| SourceError::Json {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e),
    })
}

fn strip_position(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

/// A value and its path in the source (`games[2].players[4].voting`).
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub value: &'a Value,
    pub path: &'a str,
}

pub fn key(path: &str, k: &str) -> String {
    if path.is_empty() {
        k.to_string()
    } else {
        format!("{path}.{k}")
    }
}

pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

pub fn object<'a>(
    v: &'a Value,
    path: &str,
) -> Result<&'a serde_json::Map<String, Value>, SourceError> {
    v.as_object()
        .ok_or_else(|| SourceError::shape(path, format!("expected an object, found {}", kind(v))))
}

pub fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, SourceError> {
    v.as_array()
        .ok_or_else(|| SourceError::shape(path, format!("expected an array, found {}", kind(v))))
}

/// A present, non-null field.
pub fn field<'a>(v: &'a Value, k: &str) -> Option<&'a Value> {
    v.get(k).filter(|x| !x.is_null())
}

pub fn int(v: &Value, path: &str) -> Result<i64, SourceError> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| SourceError::shape(path, format!("expected an integer, found {n}"))),
        // Some exporters quote numbers ("id": "1299").
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| SourceError::shape(path, format!("expected an integer, found {s:?}"))),
        other => Err(SourceError::shape(
            path,
            format!("expected an integer, found {}", kind(other)),
        )),
    }
}

pub fn int_in(v: &Value, path: &str, lo: i64, hi: i64) -> Result<i64, SourceError> {
    let n = int(v, path)?;
    if n < lo || n > hi {
        return Err(SourceError::shape(
            path,
            format!("{n} is outside {lo}–{hi}"),
        ));
    }
    Ok(n)
}

pub fn string<'a>(v: &'a Value, path: &str) -> Result<&'a str, SourceError> {
    v.as_str()
        .ok_or_else(|| SourceError::shape(path, format!("expected a string, found {}", kind(v))))
}

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The line (1-based) where the value at `path` (`games[1].players[3]`, as
/// the errors and refusals name it) starts in `text`, the JSON it was read
/// from; `None` when the text has no such value.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    for seg in segments(path)? {
        s.ws();
        match seg {
            Seg::Key(k) => s.member(&k)?,
            Seg::Index(n) => s.element(n)?,
        }
    }
    s.ws();
    (s.i < s.b.len()).then(|| 1 + s.b[..s.i].iter().filter(|&&c| c == b'\n').count())
}

enum Seg {
    Key(String),
    Index(usize),
}

fn segments(path: &str) -> Option<Vec<Seg>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, rest) = match part.find('[') {
            Some(i) => part.split_at(i),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Seg::Key(name.to_string()));
        }
        for idx in rest.split('[').filter(|x| !x.is_empty()) {
            out.push(Seg::Index(idx.strip_suffix(']')?.parse().ok()?));
        }
    }
    Some(out)
}

/// A cursor over JSON text already known to parse.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    /// A string's decoded text; the cursor after its closing quote.
    fn string(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        self.eat(b'"')?;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    let raw = std::str::from_utf8(&self.b[start..self.i]).ok()?;
                    return serde_json::from_str(raw).ok();
                }
                _ => self.i += 1,
            }
        }
        None
    }

    /// Moves past one value of any kind.
    fn skip(&mut self) -> Option<()> {
        self.ws();
        match *self.b.get(self.i)? {
            b'"' => self.string().map(|_| ()),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.i += 1;
                if self.eat(close).is_some() {
                    return Some(());
                }
                loop {
                    if open == b'{' {
                        self.string()?;
                        self.eat(b':')?;
                    }
                    self.skip()?;
                    if self.eat(b',').is_none() {
                        return self.eat(close);
                    }
                }
            }
            _ => {
                while self.i < self.b.len() && !b",}] \t\r\n".contains(&self.b[self.i]) {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// Into the value of member `key` of the object here.
    fn member(&mut self, key: &str) -> Option<()> {
        self.eat(b'{')?;
        loop {
            let k = self.string()?;
            self.eat(b':')?;
            if k == key {
                return Some(());
            }
            self.skip()?;
            self.eat(b',')?;
        }
    }

    /// Into element `n` of the array here.
    fn element(&mut self, n: usize) -> Option<()> {
        self.eat(b'[')?;
        for _ in 0..n {
            self.skip()?;
            self.eat(b',')?;
        }
        self.ws();
        (self.b.get(self.i) != Some(&b']')).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_found_on_its_line() {
        let text = "{\n \"games\": [\n  {\"a\": 1},\n  {\"players\": [\n   {\"x\\\"y\": 2},\n   {\"voting\": [null,\n     7]}\n  ]}\n ]\n}\n";
        assert_eq!(line_of(text, "games[1].players[1].voting[1]"), Some(7));
        assert_eq!(line_of(text, "games[1].players[0]"), Some(5));
        assert_eq!(line_of(text, "games[0].a"), Some(3));
        assert_eq!(line_of(text, "games[1].players[2]"), None);
        assert_eq!(line_of(text, "games[5]"), None);
        assert_eq!(line_of(text, "nothing"), None);
        assert_eq!(line_of("[1,\n2]", "[1]"), Some(2));
        assert_eq!(line_of("{}", ""), Some(1));
        assert_eq!(line_of("{\"a\":[]}", "a[0]"), None);
    }
}
