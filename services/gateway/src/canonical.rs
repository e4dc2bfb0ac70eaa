//! JSON with every object's keys in sorted order, written straight from a
//! `Serialize` value: the bytes `serde_json::to_vec(&serde_json::to_value(v))`
//! gives (serde_json's `Value` keeps its keys in a `BTreeMap`), without
//! building the tree of strings in between. The feed's views have always
//! been sent in this form; [`crate::patch::diff_bytes`] relies on it, since
//! two canonical encodings are equal exactly when the values are.

use std::fmt::Display;

use serde::ser::{self, Serialize};
use serde_json::Error;

/// A reusable writer: its buffers grow to the largest value written and
/// are kept, so a warm writer allocates nothing.
#[derive(Default)]
pub struct Canonical {
    out: Vec<u8>,
    /// Where objects are put in order.
    scratch: Vec<u8>,
    /// The members of the objects being written, innermost last.
    members: Vec<Member>,
    /// The text of map keys (struct keys are static).
    keys: String,
}

#[derive(Clone, Copy)]
enum Key {
    Static(&'static str),
    /// A range of [`Canonical::keys`].
    Owned(u32, u32),
}

#[derive(Clone, Copy)]
struct Member {
    key: Key,
    /// The member's `"key":value` in `out`.
    start: usize,
    end: usize,
}

impl Canonical {
    /// `v` in canonical form: the writer's buffer, valid until its next use.
    pub fn write<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<&[u8], Error> {
        self.out.clear();
        self.members.clear();
        self.keys.clear();
        v.serialize(&mut *self)?;
        Ok(&self.out)
    }

    fn plain<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        serde_json::to_writer(&mut self.out, v)
    }

    fn open(&mut self) -> Object<'_> {
        self.out.push(b'{');
        Object {
            start: self.out.len(),
            base: self.members.len(),
            key: None,
            w: self,
        }
    }
}

/// `v` in canonical form, in a new buffer.
pub fn to_vec<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, Error> {
    Canonical::default().write(v).map(<[u8]>::to_vec)
}

/// An object being written: members go out as they come and are put in
/// key order when it ends.
pub struct Object<'a> {
    w: &'a mut Canonical,
    /// Where the first member starts in `out`.
    start: usize,
    /// The first of this object's entries in `members`.
    base: usize,
    /// A map key waiting for its value.
    key: Option<(Key, usize)>,
}

impl<'a> Object<'a> {
    fn key(&mut self, key: Key) -> usize {
        let w = &mut *self.w;
        if w.members.len() > self.base {
            w.out.push(b',');
        }
        let start = w.out.len();
        let text = match key {
            Key::Static(s) => s,
            Key::Owned(a, b) => &w.keys[a as usize..b as usize],
        };
        serde_json::to_writer(&mut w.out, text).expect("strings serialize");
        w.out.push(b':');
        start
    }

    fn value<T: Serialize + ?Sized>(&mut self, key: Key, start: usize, v: &T) -> Result<(), Error> {
        v.serialize(&mut *self.w)?;
        let end = self.w.out.len();
        self.w.members.push(Member { key, start, end });
        Ok(())
    }

    /// Puts the members in key order and closes the object; gives the
    /// writer back.
    fn finish(self) -> &'a mut Canonical {
        let w = self.w;
        let members = &mut w.members[self.base..];
        let keys = &w.keys;
        let text = |k: Key| match k {
            Key::Static(s) => s,
            Key::Owned(a, b) => &keys[a as usize..b as usize],
        };
        let sorted = members.windows(2).all(|p| text(p[0].key) < text(p[1].key));
        if !sorted {
            // Stable, so that of two equal keys the later is last; it is
            // the one kept, as a map's insert keeps it.
            members.sort_by(|a, b| text(a.key).cmp(text(b.key)));
            w.scratch.clear();
            w.scratch.extend_from_slice(&w.out[self.start..]);
            w.out.truncate(self.start);
            let shift = self.start;
            let mut first = true;
            for (i, m) in members.iter().enumerate() {
                if members
                    .get(i + 1)
                    .is_some_and(|next| text(next.key) == text(m.key))
                {
                    continue;
                }
                if !first {
                    w.out.push(b',');
                }
                first = false;
                w.out
                    .extend_from_slice(&w.scratch[m.start - shift..m.end - shift]);
            }
        }
        w.members.truncate(self.base);
        w.out.push(b'}');
        w
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let start = self.key(Key::Static(key));
        self.value(Key::Static(key), start, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let a = self.w.keys.len();
        key.serialize(KeyText(&mut self.w.keys))?;
        let key = Key::Owned(a as u32, self.w.keys.len() as u32);
        let start = self.key(key);
        self.key = Some((key, start));
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let (key, start) = self
            .key
            .take()
            .ok_or_else(|| ser::Error::custom("a map value without its key"))?;
        self.value(key, start, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

/// A struct variant: `{"variant":{…}}`.
pub struct Variant<'a>(Object<'a>);

impl ser::SerializeStructVariant for Variant<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.0, key, value)
    }

    fn end(self) -> Result<(), Error> {
        self.0.finish().out.push(b'}');
        Ok(())
    }
}

/// An array being written.
pub struct Array<'a> {
    w: &'a mut Canonical,
    first: bool,
    /// Closes a tuple variant's `{"variant":[…]}` too.
    variant: bool,
}

impl Array<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        if !self.first {
            self.w.out.push(b',');
        }
        self.first = false;
        v.serialize(&mut *self.w)
    }

    fn close(self) -> Result<(), Error> {
        self.w.out.push(b']');
        if self.variant {
            self.w.out.push(b'}');
        }
        Ok(())
    }
}

macro_rules! array_impl {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for Array<'_> {
            type Ok = ();
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }

            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    };
}

array_impl!(SerializeSeq, serialize_element);
array_impl!(SerializeTuple, serialize_element);
array_impl!(SerializeTupleStruct, serialize_field);
array_impl!(SerializeTupleVariant, serialize_field);

impl<'a> ser::Serializer for &'a mut Canonical {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Array<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Variant<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // A `Value` holds floats as f64.
        self.plain(&f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.plain(&v)
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.plain(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.plain(v)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.plain(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        self.plain(variant)?;
        self.out.push(b':');
        v.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Array<'a>, Error> {
        self.out.push(b'[');
        Ok(Array {
            w: self,
            first: true,
            variant: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Array<'a>, Error> {
        self.out.push(b'{');
        self.plain(variant)?;
        self.out.extend_from_slice(b":[");
        Ok(Array {
            w: self,
            first: true,
            variant: true,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(self.open())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object<'a>, Error> {
        Ok(self.open())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<'a>, Error> {
        self.out.push(b'{');
        self.plain(variant)?;
        self.out.push(b':');
        Ok(Variant(self.open()))
    }
    fn collect_str<T: Display + ?Sized>(self, v: &T) -> Result<(), Error> {
        self.serialize_str(&v.to_string())
    }
}

/// A map key's text, as serde_json makes it: strings as they are, numbers,
/// booleans and unit variants as their text. Nothing else is a key.
struct KeyText<'a>(&'a mut String);

fn not_a_key() -> Error {
    ser::Error::custom("key must be a string")
}

macro_rules! key_as_text {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            use std::fmt::Write;
            write!(self.0, "{v}").expect("writing to a String");
            Ok(())
        })*
    };
}

macro_rules! key_refused {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, Error> {
            Err(not_a_key())
        })*
    };
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    key_as_text!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_char: char,
        serialize_str: &str
    );

    key_refused! {
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.0.push_str(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_a_key())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::Serialize;

    use super::*;

    /// What the hub used to send: the value through a `serde_json::Value`.
    fn through_value<T: Serialize>(v: &T) -> String {
        serde_json::to_string(&serde_json::to_value(v).unwrap()).unwrap()
    }

    fn canonical<T: Serialize>(v: &T) -> String {
        String::from_utf8(to_vec(v).unwrap()).unwrap()
    }

    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tagged {
        Unit,
        Fields { zeta: u8, alpha: Option<i64> },
        Inner(Inner),
    }

    #[derive(Serialize)]
    enum External {
        Unit,
        Newtype(Vec<u16>),
        Tuple(u8, String),
        Fields { z: bool, a: f64, m: f32 },
    }

    #[derive(Serialize)]
    struct Inner {
        y: &'static str,
        b: [u8; 3],
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
    }

    #[derive(Serialize)]
    struct Flat {
        z: u8,
        #[serde(flatten)]
        tagged: Tagged,
        a: (),
    }

    #[derive(Serialize)]
    struct All {
        zz: Vec<Tagged>,
        ext: Vec<External>,
        flat: Vec<Flat>,
        by_number: HashMap<u32, &'static str>,
        by_text: BTreeMap<String, Inner>,
        unicode: String,
        c: char,
        big: u64,
        neg: i8,
        nan: f64,
        a: Option<Inner>,
    }

    #[test]
    fn every_shape_of_value_is_written_as_a_value_would_be() {
        let inner = || Inner {
            y: "y\"\\\n",
            b: [1, 2, 3],
            skipped: None,
        };
        let all = All {
            zz: vec![
                Tagged::Unit,
                Tagged::Fields {
                    zeta: 1,
                    alpha: Some(-5),
                },
                Tagged::Inner(inner()),
            ],
            ext: vec![
                External::Unit,
                External::Newtype(vec![7, 8]),
                External::Tuple(1, "x".into()),
                External::Fields {
                    z: true,
                    a: 0.1,
                    m: 0.1,
                },
            ],
            flat: vec![
                Flat {
                    z: 9,
                    tagged: Tagged::Fields {
                        zeta: 2,
                        alpha: None,
                    },
                    a: (),
                },
                Flat {
                    z: 9,
                    tagged: Tagged::Inner(inner()),
                    a: (),
                },
            ],
            // Numbers as keys sort as text: "10" before "9".
            by_number: [(9, "nine"), (10, "ten"), (100, "hundred")].into(),
            by_text: [
                ("b".to_owned(), inner()),
                ("a\u{1}".to_owned(), inner()),
                ("a".to_owned(), inner()),
                ("é".to_owned(), inner()),
            ]
            .into(),
            unicode: "Мафия ☂".into(),
            c: 'ё',
            big: u64::MAX,
            neg: -128,
            nan: f64::NAN,
            a: Some(inner()),
        };
        assert_eq!(canonical(&all), through_value(&all));
    }

    #[test]
    fn a_later_duplicate_key_wins_as_in_a_map() {
        struct Twice;
        impl Serialize for Twice {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("b", &1)?;
                m.serialize_entry("a", &2)?;
                m.serialize_entry("b", &3)?;
                m.end()
            }
        }
        assert_eq!(canonical(&Twice), through_value(&Twice));
        assert_eq!(canonical(&Twice), r#"{"a":2,"b":3}"#);
    }

    #[test]
    fn keys_that_are_not_text_or_numbers_are_refused() {
        let m: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(to_vec(&m).is_err());
    }

    #[test]
    fn a_reused_writer_gives_each_value_alone() {
        let mut w = Canonical::default();
        let first = w.write(&Tagged::Unit).unwrap().to_vec();
        let _ = w.write(&External::Newtype(vec![1; 100])).unwrap();
        assert_eq!(w.write(&Tagged::Unit).unwrap(), &first[..]);
    }
}
