//! JSON merge patches (RFC 7386) between two views, so a delta carries only
//! what changed and a client needs no rules engine to follow a table.

use serde_json::{Map, Value};

/// The merge patch that turns `old` into `new`, or `None` when they are equal.
/// Arrays are replaced whole, as RFC 7386 requires; a key missing from `new`
/// becomes `null` (removal).
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
}
