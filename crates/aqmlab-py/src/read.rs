//! A scenario dict read from its Python objects, with no JSON text between: at 100 flows,
//! `json.dumps` in Python and reading its text were ~0.7 ms of the ~2.5 ms a run spent
//! outside its event loop.
//!
//! Two readers, tried in turn. `scenario` deserializes the scenario straight from the
//! objects (serde over Python objects), so no document is built for what reads as a plain
//! struct: at 10 000 flows, building the document's ~250 000 keys and values and reading it
//! back took 42-45 ms, the direct reading takes 14-17 (BENCHMARKS.md, 2026-11-29 (late
//! morning)).
//! A dict with `repeat` or `profile` (which the core resolves on a document), or anything
//! that does not read that way, goes to `document`: the same deserializer, into the
//! document (`toml::Table`) the core reads text into. What neither can carry as the JSON text would (a key not a string, a
//! non-finite float, an integer beyond 64 signed bits, `None` in a list, a numpy scalar, a
//! dict nested past `MAX_DEPTH`) goes the text's way (`aqmlab.scenario.engine_text`), so its
//! reading and messages are the text's. A `None` member is left out, as JSON's `null` is.
//!
//! The deserializer takes values as the JSON text would (`str` before `bool` before `int`
//! before `float`, since Python's bool is an int) and gives serde what a document gives it:
//! `visit_str`, `visit_bool`, `visit_i64`, `visit_f64`, maps and sequences, and `Some` for
//! every value present. Key order differs (a document's table is
//! sorted, a dict keeps insertion order), which no struct's reading depends on; the tagged
//! tables (`check::tagged_table`) are read into a document table either way.

use aqmlab_core::scenario::{self, Scenario};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::value::{Error, StrDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Deeper nesting than any scenario has: a dict that contains itself ends here, as the JSON
/// encoder's recursion does, and goes the text's way.
const MAX_DEPTH: usize = 32;

/// The scenario of a dict, deserialized from its objects (`parse_direct`); `None` if the dict
/// has a key the core resolves on a document (`scenario::DOCUMENT_KEYS`) or does not read.
pub(crate) fn scenario(d: &Bound<'_, PyDict>) -> Option<Scenario> {
    for k in scenario::DOCUMENT_KEYS {
        if d.get_item(k).ok()?.is_some_and(|v| !v.is_none()) {
            return None;
        }
    }
    scenario::parse_direct(Obj {
        v: d.as_any(),
        depth: 0,
    })
}

/// The document of a dict (`parse_document` reads it): the same deserializer, into a
/// `toml::Table`; `None` for what the JSON text would not carry as it is.
pub(crate) fn document(d: &Bound<'_, PyDict>) -> Option<toml::Table> {
    toml::Table::deserialize(Obj {
        v: d.as_any(),
        depth: 0,
    })
    .ok()
}

/// What a value read from Python objects can be; `None` (from `of`) for anything else.
enum Kind<'a, 'py> {
    Str(&'a str),
    Bool(bool),
    Int(i64),
    Float(f64),
    Dict(&'a Bound<'py, PyDict>),
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'a, 'py> Kind<'a, 'py> {
    fn of(v: &'a Bound<'py, PyAny>) -> Option<Self> {
        // bool before int: Python's bool is an int.
        Some(if let Ok(x) = v.cast::<PyString>() {
            Kind::Str(x.to_str().ok()?)
        } else if let Ok(x) = v.cast::<PyBool>() {
            Kind::Bool(x.is_true())
        } else if let Ok(x) = v.cast::<PyInt>() {
            Kind::Int(x.extract::<i64>().ok()?)
        } else if let Ok(x) = v.cast::<PyFloat>() {
            let x = x.value();
            if !x.is_finite() {
                return None;
            }
            Kind::Float(x)
        } else if let Ok(x) = v.cast::<PyDict>() {
            Kind::Dict(x)
        } else if let Ok(x) = v.cast::<PyList>() {
            Kind::List(x)
        } else if let Ok(x) = v.cast::<PyTuple>() {
            Kind::Tuple(x)
        } else {
            // `None` (inside a list) and every other type.
            return None;
        })
    }
}

/// The direct reader's failures carry no message: the document's or the text's reading
/// says what is wrong.
fn unread() -> Error {
    de::Error::custom("")
}

/// A Python object as a serde deserializer.
struct Obj<'a, 'py> {
    v: &'a Bound<'py, PyAny>,
    depth: usize,
}

impl<'de> de::Deserializer<'de> for Obj<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.depth > MAX_DEPTH {
            return Err(unread());
        }
        let depth = self.depth + 1;
        match Kind::of(self.v).ok_or_else(unread)? {
            Kind::Str(s) => visitor.visit_str(s),
            Kind::Bool(b) => visitor.visit_bool(b),
            Kind::Int(i) => visitor.visit_i64(i),
            Kind::Float(x) => visitor.visit_f64(x),
            Kind::Dict(d) => visitor.visit_map(Map {
                it: d.iter(),
                value: None,
                depth,
            }),
            Kind::List(l) => visitor.visit_seq(Seq {
                it: l.iter(),
                depth,
            }),
            Kind::Tuple(t) => visitor.visit_seq(Seq {
                it: t.iter(),
                depth,
            }),
        }
    }

    // A document has no null: every value present is `Some` (a `None` member is left out).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    // The scenario's enums are written as their variant's name; any other form goes to
    // the document's reader.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match Kind::of(self.v) {
            Some(Kind::Str(s)) => {
                visitor.visit_enum(IntoDeserializer::<Error>::into_deserializer(s))
            }
            _ => Err(unread()),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A dict's members, `None` ones left out; keys must be strings.
struct Map<'py> {
    it: pyo3::types::iter::BoundDictIterator<'py>,
    value: Option<Bound<'py, PyAny>>,
    depth: usize,
}

impl<'de> MapAccess<'de> for Map<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        for (k, v) in self.it.by_ref() {
            if v.is_none() {
                continue;
            }
            let k = k.cast::<PyString>().map_err(|_| unread())?;
            let k: StrDeserializer<'_, Error> =
                k.to_str().map_err(|_| unread())?.into_deserializer();
            let key = seed.deserialize(k)?;
            self.value = Some(v);
            return Ok(Some(key));
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let v = self.value.take().ok_or_else(unread)?;
        seed.deserialize(Obj {
            v: &v,
            depth: self.depth,
        })
    }
}

/// A list's or a tuple's items.
struct Seq<I> {
    it: I,
    depth: usize,
}

impl<'de, 'py, I: Iterator<Item = Bound<'py, PyAny>>> SeqAccess<'de> for Seq<I> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.it.next() {
            None => Ok(None),
            Some(x) => seed
                .deserialize(Obj {
                    v: &x,
                    depth: self.depth,
                })
                .map(Some),
        }
    }
}
