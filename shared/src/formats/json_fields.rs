//! Reading JSON documents field by field, so every error names its field.
//!
//! Deriving `Deserialize` would report "invalid type at line 3 column 7";
//! a user fixing a puzzle file needs `field "pieces[12][2]"` and the range
//! that was expected. Parsing into a [`Value`] first and walking it here
//! gives that, at no cost that matters for files of a few kilobytes.
//! `serde_json` keeps integers up to `u64::MAX` exact in a `Value`, which
//! `board_hash` relies on.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// One JSON object of a document in notation `format`, with the path that
/// led to it (empty at the top level).
pub(crate) struct Object<'a> {
    format: &'static str,
    path: String,
    map: &'a Map<String, Value>,
}

/// Parses `text` as a JSON object, naming the line and column of a syntax error.
pub(crate) fn parse(format: &'static str, text: &str) -> Result<Map<String, Value>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Error::format(
            format,
            format!("line {}, column {}", e.line(), e.column()),
            format!("not valid JSON: {e}"),
        )
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(Error::format(
            format,
            "top level",
            format!("expected a JSON object, found {}", kind(&other)),
        )),
    }
}

impl<'a> Object<'a> {
    pub(crate) fn top(format: &'static str, map: &'a Map<String, Value>) -> Self {
        Object {
            format,
            path: String::new(),
            map,
        }
    }

    /// The path of `key` inside this object, as errors print it.
    pub(crate) fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub(crate) fn error(&self, path: &str, reason: impl std::fmt::Display) -> Error {
        Error::format(self.format, format!("field \"{path}\""), reason)
    }

    pub(crate) fn optional(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(crate) fn required(&self, key: &str) -> Result<&'a Value> {
        self.optional(key)
            .ok_or_else(|| self.error(&self.path_of(key), "missing"))
    }

    pub(crate) fn string(&self, key: &str) -> Result<&'a str> {
        let value = self.required(key)?;
        value
            .as_str()
            .ok_or_else(|| self.error(&self.path_of(key), expected("a string", value)))
    }

    pub(crate) fn optional_string(&self, key: &str) -> Result<Option<&'a str>> {
        match self.optional(key) {
            None => Ok(None),
            Some(_) => self.string(key).map(Some),
        }
    }

    /// An unsigned integer in `0..=max`.
    pub(crate) fn uint(&self, key: &str, max: u64) -> Result<u64> {
        self.uint_at(self.required(key)?, &self.path_of(key), max)
    }

    pub(crate) fn optional_uint(&self, key: &str, max: u64) -> Result<Option<u64>> {
        match self.optional(key) {
            None => Ok(None),
            Some(_) => self.uint(key, max).map(Some),
        }
    }

    pub(crate) fn uint_at(&self, value: &Value, path: &str, max: u64) -> Result<u64> {
        value
            .as_u64()
            .filter(|&n| n <= max)
            .ok_or_else(|| self.error(path, expected(&format!("an integer 0..={max}"), value)))
    }

    pub(crate) fn int_at(&self, value: &Value, path: &str, min: i64, max: i64) -> Result<i64> {
        value
            .as_i64()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.error(path, expected(&format!("an integer {min}..={max}"), value)))
    }

    pub(crate) fn array(&self, key: &str) -> Result<&'a Vec<Value>> {
        let value = self.required(key)?;
        self.array_at(value, &self.path_of(key))
    }

    pub(crate) fn array_at(&self, value: &'a Value, path: &str) -> Result<&'a Vec<Value>> {
        value
            .as_array()
            .ok_or_else(|| self.error(path, expected("an array", value)))
    }

    pub(crate) fn object_at(&self, value: &'a Value, path: String) -> Result<Object<'a>> {
        match value.as_object() {
            Some(map) => Ok(Object {
                format: self.format,
                path,
                map,
            }),
            None => Err(self.error(&path, expected("an object", value))),
        }
    }
}

fn expected(what: &str, found: &Value) -> String {
    format!("expected {what}, found {}", kind(found))
}

/// A short description of a value for error messages.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() > 24 => {
            format!("a string of {} characters", s.chars().count())
        }
        Value::String(s) => format!("{s:?}"),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}
