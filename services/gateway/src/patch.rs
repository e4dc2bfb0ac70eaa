//! JSON merge patches (RFC 7386) between two views, so a delta carries only
//! what changed and a client needs no rules engine to follow a table.
//!
//! The hub diffs the views' encodings ([`diff_bytes`]), never a parsed
//! tree; [`diff`] on `Value`s says the same thing and is what the tests
//! hold it to.

use std::cmp::Ordering;

use serde_json::{Map, Value};

/// The merge patch that turns `old` into `new`, appended to `out`: the
/// bytes [`diff`] gives for their values, and `{}` when they are equal.
/// Both must be objects in [`crate::canonical`] form (compact, every
/// object's keys sorted, as the hub encodes views), in which two values
/// are equal exactly when their bytes are, and members can be matched by
/// walking both objects in step.
pub fn diff_bytes(old: &[u8], new: &[u8], out: &mut Vec<u8>) {
    if old == new {
        out.extend_from_slice(b"{}");
    } else {
        patch_bytes(old, new, out);
    }
}

/// `new` where `old` was, as a patch; `old != new`.
fn patch_bytes(old: &[u8], new: &[u8], out: &mut Vec<u8>) {
    if !(old.first() == Some(&b'{') && new.first() == Some(&b'{')) {
        out.extend_from_slice(new);
        return;
    }
    out.push(b'{');
    let mut first = true;
    let mut member = |out: &mut Vec<u8>, key: &[u8], value: &[u8]| {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(key);
        out.push(b':');
        out.extend_from_slice(value);
    };
    let (mut olds, mut news) = (Members::of(old), Members::of(new));
    let (mut o, mut n) = (olds.next(), news.next());
    loop {
        match (o, n) {
            (None, None) => break,
            (Some((ok, ov)), Some((nk, nv))) => match key_order(ok, nk) {
                Ordering::Equal => {
                    if ov != nv {
                        // The key, then its value's own patch.
                        member(out, nk, b"");
                        patch_bytes(ov, nv, out);
                    }
                    (o, n) = (olds.next(), news.next());
                }
                Ordering::Less => {
                    member(out, ok, b"null");
                    o = olds.next();
                }
                Ordering::Greater => {
                    member(out, nk, nv);
                    n = news.next();
                }
            },
            (Some((ok, _)), None) => {
                member(out, ok, b"null");
                o = olds.next();
            }
            (None, Some((nk, nv))) => {
                member(out, nk, nv);
                n = news.next();
            }
        }
    }
    out.push(b'}');
}

/// Keys as a `Value`'s map orders them: by their text, escapes decoded.
fn key_order(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (&a[1..a.len() - 1], &b[1..b.len() - 1]);
    if a.contains(&b'\\') || b.contains(&b'\\') {
        let text = |k: &[u8]| -> String {
            let mut quoted = Vec::with_capacity(k.len() + 2);
            quoted.push(b'"');
            quoted.extend_from_slice(k);
            quoted.push(b'"');
            serde_json::from_slice(&quoted).expect("a key of canonical JSON")
        };
        return text(a).cmp(&text(b));
    }
    a.cmp(b)
}

/// The members of a compact JSON object: each key (quoted, as written)
/// and its value's bytes.
struct Members<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Members<'a> {
    fn of(object: &'a [u8]) -> Self {
        Members { b: object, at: 1 }
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.b;
        if self.at >= b.len() || b[self.at] != b'"' {
            return None;
        }
        let key_end = string_end(b, self.at);
        let value_end = value_end(b, key_end + 1);
        let item = (&b[self.at..key_end], &b[key_end + 1..value_end]);
        // Past the `,` (or onto the closing `}`, where the next call stops).
        self.at = value_end + 1;
        Some(item)
    }
}

/// Where the string starting at `b[i]` (its opening quote) ends.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    loop {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
}

/// Where the compact JSON value starting at `b[i]` ends.
fn value_end(b: &[u8], i: usize) -> usize {
    match b[i] {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') {
                j += 1;
            }
            j
        }
    }
}

/// The merge patch that turns `old` into `new`, or `None` when they are equal
/// (the `Value` form the hub sent before `diff_bytes`: the tests' reference).
/// Arrays are replaced whole, as RFC 7386 requires; a key missing from `new`
/// becomes `null` (removal).
#[cfg(test)]
pub fn diff(old: &Value, new: &Value) -> Option<Value> {
    if old == new {
        return None;
    }
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let mut patch = Map::new();
            for (k, nv) in n {
                match o.get(k) {
                    Some(ov) => {
                        if let Some(p) = diff(ov, nv) {
                            // A nested null would mean "remove"; objects
                            // replaced by null are sent as null, which is
                            // the same thing for a view (absent == null).
                            patch.insert(k.clone(), p);
                        }
                    }
                    None => {
                        patch.insert(k.clone(), nv.clone());
                    }
                }
            }
            for k in o.keys() {
                if !n.contains_key(k) {
                    patch.insert(k.clone(), Value::Null);
                }
            }
            Some(Value::Object(patch))
        }
        _ => Some(new.clone()),
    }
}

/// Applies a merge patch in place (what a client does with a delta).
pub fn apply(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let t = target.as_object_mut().expect("made an object above");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    apply(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// Drops `null` members recursively, so a patched view compares equal to a
/// fresh one (merge patches cannot tell "null" from "absent").
pub fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn applying_the_diff_rebuilds_the_new_value() {
        let old = json!({"a": 1, "b": {"c": 2, "d": null}, "e": [1, 2], "f": {"g": 1}});
        let new = json!({"a": 1, "b": {"c": 3, "d": 4}, "e": [1], "f": null, "h": "x"});
        let p = diff(&old, &new).unwrap();
        let mut got = old.clone();
        apply(&mut got, &p);
        let mut want = new.clone();
        strip_nulls(&mut want);
        strip_nulls(&mut got);
        assert_eq!(got, want);
        assert_eq!(diff(&new, &new), None);
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        // Few keys, so that objects share some; escapes and non-ASCII too.
        let key = proptest::sample::select(vec!["a", "b", "ab", "a!", "a\n", "a\"", "é", "z"]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..3).prop_map(Value::from),
            proptest::sample::select(vec!["", "x", "\\", "}", "\"{"]).prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                proptest::collection::btree_map(key.clone().prop_map(str::to_owned), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn object() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        json().prop_map(|v| {
            if v.is_object() {
                v
            } else {
                serde_json::json!({"v": v})
            }
        })
    }

    proptest::proptest! {
        /// The patch read off two encodings is the one `diff` makes of
        /// their values, byte for byte, and it turns the old into the new.
        #[test]
        fn the_patch_of_two_encodings_is_the_patch_of_their_values(
            old in object(),
            new in object(),
        ) {
            let (o, n) = (serde_json::to_vec(&old).unwrap(), serde_json::to_vec(&new).unwrap());
            let mut got = Vec::new();
            diff_bytes(&o, &n, &mut got);
            let want = diff(&old, &new).unwrap_or_else(|| serde_json::json!({}));
            proptest::prop_assert_eq!(
                std::str::from_utf8(&got).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            let mut patched = old.clone();
            apply(&mut patched, &serde_json::from_slice(&got).unwrap());
            let mut want = new.clone();
            strip_nulls(&mut patched);
            strip_nulls(&mut want);
            proptest::prop_assert_eq!(patched, want);
        }
    }
}
