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
