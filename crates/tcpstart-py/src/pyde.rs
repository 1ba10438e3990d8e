//! A scenario dict read straight from its Python objects, as serde_json reads the text of
//! `tcpstart.scenario.to_json(d)`, without that text: encoding it took about 21 k instructions
//! per B5 scenario and lexing it again a few thousand more, of about 75 k spent outside the
//! simulation (perf/journal.md, "B5's Python overhead").
//!
//! Only plain data is read here (`plain`): dicts with string keys, lists, tuples, strings, ints,
//! floats, booleans and None, no container inside itself. Anything else is what json.dumps
//! turns into text or refuses (its `default`, other keys, cycles), wherever it sits, so such a
//! scenario goes through its JSON text, as before. Plain values go to the visitors serde_json
//! would call for their text, in the dict's order, with serde_json's own errors, so a scenario
//! parses, and fails at the same field, as its text would. What the text would still show
//! differently is reported as `Error::NotPlain` where it is met (at the same point as serde_json
//! would fail on the text, or read it differently), and the caller then takes the text: a
//! string with lone surrogates.
//! A float that is not finite has no JSON text (serde_json only says `expected value` of
//! Python's `NaN`), so it is read as the float it is, and the field's range check names it.

use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

#[derive(Debug)]
pub enum Error {
    /// What serde_json says about the scenario's JSON text.
    Json(serde_json::Error),
    /// The JSON text would not read as these objects do (see the module's docs).
    NotPlain,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Json(e) => e.fmt(f),
            Error::NotPlain => f.write_str("not plain JSON data"),
        }
    }
}

impl std::error::Error for Error {}

/// serde_json's wording: it writes `null` and floats its own way.
impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Json(<serde_json::Error as de::Error>::custom(msg))
    }
    fn invalid_type(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        Error::Json(<serde_json::Error as de::Error>::invalid_type(unexp, exp))
    }
    fn invalid_value(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        Error::Json(<serde_json::Error as de::Error>::invalid_value(unexp, exp))
    }
}

fn not_plain<E>(_: E) -> Error {
    Error::NotPlain
}

/// The containers a value sits in, innermost first.
struct Parents<'a> {
    this: *mut pyo3::ffi::PyObject,
    depth: usize,
    up: Option<&'a Parents<'a>>,
}

/// Deeper than any scenario, and than serde_json reads (128): such data takes the text path,
/// where json.dumps or serde_json refuses it, instead of this recursion overflowing the stack.
const MAX_DEPTH: usize = 64;

/// Whether the scenario is plain data (see the module's docs).
pub fn plain(obj: &Bound<'_, PyAny>) -> bool {
    within(obj, None)
}

fn within(obj: &Bound<'_, PyAny>, parents: Option<&Parents>) -> bool {
    let mut up = parents;
    while let Some(p) = up {
        if p.this == obj.as_ptr() {
            return false;
        }
        up = p.up;
    }
    let depth = parents.map_or(0, |p| p.depth + 1);
    if depth > MAX_DEPTH {
        return false;
    }
    let here = Parents { this: obj.as_ptr(), depth, up: parents };
    if let Ok(dict) = obj.downcast::<PyDict>() {
        dict.iter().all(|(k, v)| k.is_instance_of::<PyString>() && within(&v, Some(&here)))
    } else if let Ok(list) = obj.downcast::<PyList>() {
        list.iter().all(|v| within(&v, Some(&here)))
    } else if let Ok(tuple) = obj.downcast::<PyTuple>() {
        tuple.iter().all(|v| within(&v, Some(&here)))
    } else {
        obj.is_none()
            || obj.is_instance_of::<PyString>()
            || obj.is_instance_of::<PyInt>()
            || obj.is_instance_of::<PyFloat>()
    }
}

/// A plain Python value as a serde Deserializer.
pub struct Value<'py>(pub Bound<'py, PyAny>);

impl<'de> de::Deserializer<'de> for Value<'_> {
    type Error = Error;

    /// The same tests in the same order as json's encoder (`Modules/_json.c`,
    /// `encoder_listencode_obj`): None, True, False, str, int, float, list or tuple, dict.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let obj = &self.0;
        if obj.is_none() {
            visitor.visit_unit()
        } else if let Ok(b) = obj.downcast::<PyBool>() {
            visitor.visit_bool(b.is_true())
        } else if let Ok(s) = obj.downcast::<PyString>() {
            visitor.visit_str(&s.to_cow().map_err(not_plain)?)
        } else if obj.is_instance_of::<PyInt>() {
            // json writes int.__repr__, which serde_json reads as u64, i64 or (beyond) a float,
            // its own reading of the digits (not always the nearest float).
            match (obj.extract::<u64>(), obj.extract::<i64>()) {
                (Ok(u), _) => visitor.visit_u64(u),
                (_, Ok(i)) => visitor.visit_i64(i),
                _ => {
                    let digits = obj.repr().map_err(not_plain)?;
                    let read: f64 = serde_json::from_str(&digits.to_cow().map_err(not_plain)?).map_err(not_plain)?;
                    visitor.visit_f64(read)
                }
            }
        } else if let Ok(f) = obj.downcast::<PyFloat>() {
            // json writes float.__repr__; serde_json's reading of that text (best effort, not
            // always the nearest float) is what the simulation has always been given.
            let v = f.value();
            if !v.is_finite() {
                // Not JSON, so no text to read it as: given as it is, for the field's range
                // check to name it with the range.
                return visitor.visit_f64(v);
            }
            let text = PyFloat::new(obj.py(), v).repr().map_err(not_plain)?;
            let read: f64 = serde_json::from_str(&text.to_cow().map_err(not_plain)?).map_err(not_plain)?;
            visitor.visit_f64(read)
        } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
            let items: Vec<Bound<'_, PyAny>> =
                obj.try_iter().map_err(not_plain)?.collect::<PyResult<_>>().map_err(not_plain)?;
            let mut seq = Items(items.into_iter());
            let value = visitor.visit_seq(&mut seq)?;
            // A visitor that stops early: serde_json's error for the rest comes from the text.
            match seq.0.len() {
                0 => Ok(value),
                _ => Err(Error::NotPlain),
            }
        } else if let Ok(dict) = obj.downcast::<PyDict>() {
            let entries: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = dict.iter().collect();
            let mut map = Entries { entries: entries.into_iter(), value: None };
            let value = visitor.visit_map(&mut map)?;
            match map.entries.len() {
                0 => Ok(value),
                _ => Err(Error::NotPlain),
            }
        } else {
            Err(Error::NotPlain) // `plain` lets nothing else through
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.0.is_none() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct Items<'py>(std::vec::IntoIter<Bound<'py, PyAny>>);

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.0.next() {
            Some(obj) => seed.deserialize(Value(obj)).map(Some),
            None => Ok(None),
        }
    }
}

struct Entries<'py> {
    entries: std::vec::IntoIter<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    value: Option<Bound<'py, PyAny>>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        let key = key.downcast::<PyString>().map_err(not_plain)?.to_cow().map_err(not_plain)?;
        self.value = Some(value);
        seed.deserialize(IntoDeserializer::<Error>::into_deserializer(key.as_ref())).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let obj = self.value.take().expect("serde asks for a value after its key");
        seed.deserialize(Value(obj))
    }
}
