//! Scenarios built in Python cross into the engine as JSON text: the standard library writes
//! JSON in C, about 25 times faster than a Python TOML writer (a 10 000-flow dumbbell:
//! 0.07 s against 1.7 s). The document becomes the same `toml::Table` a TOML file parses
//! into, and `from_table` reads both: the same paths, values and messages whichever way a
//! scenario came in. JSON's `null` is "not given", as `None` is in the builders.

use crate::check::{ScenarioError, ScenarioErrors};
use serde::de;

fn err(path: &str, value: String, message: &str) -> ScenarioErrors {
    ScenarioErrors(vec![ScenarioError {
        path: path.to_string(),
        value,
        message: message.to_string(),
    }])
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn value(v: serde_json::Value, path: &str) -> Result<toml::Value, ScenarioErrors> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => return Err(err(path, "null".into(), "null inside a list")),
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => toml::Value::Integer(i),
            (None, _) if n.is_u64() => {
                return Err(err(path, n.to_string(), "integer out of the 64-bit range"))
            }
            (None, Some(x)) => toml::Value::Float(x),
            (None, None) => return Err(err(path, n.to_string(), "not a number TOML can hold")),
        },
        J::String(s) => toml::Value::String(s),
        J::Array(items) => toml::Value::Array(
            (items.into_iter().enumerate())
                .map(|(i, x)| value(x, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(m) => toml::Value::Table(table(m, path)?),
    })
}

fn table(
    m: serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> Result<toml::Table, ScenarioErrors> {
    let mut t = toml::Table::new();
    for (k, v) in m {
        if !v.is_null() {
            let p = child(path, &k);
            t.insert(k, value(v, &p)?);
        }
    }
    Ok(t)
}

/// The document of a scenario given as JSON text (an object); `null` members are left out.
pub fn document(text: &str) -> Result<toml::Table, ScenarioErrors> {
    // Reading straight into TOML values, with no path kept, is most of the cost of a large
    // scenario saved; it gives up at the first thing it cannot take, and the slower reading
    // below, whole document first and a path for every member, then says what and where.
    if let Ok(t) = direct(text) {
        return Ok(t);
    }
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| err("", String::new(), &format!("JSON syntax error: {e}")))?;
    let serde_json::Value::Object(m) = doc else {
        return Err(err(
            "",
            String::new(),
            "a scenario must be a table (JSON object)",
        ));
    };
    table(m, "")
}

/// The document, if it is an object whose lists hold no `null` and whose integers fit in
/// 64 signed bits: exactly what `table` makes of it then, duplicate members included (the
/// last one counts, and a `null` one removes the member).
fn direct(text: &str) -> Result<toml::Table, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let t = de::Deserializer::deserialize_map(&mut de, Direct)?;
    de.end()?;
    match t {
        Some(toml::Value::Table(t)) => Ok(t),
        _ => Err(de::Error::custom("not an object")),
    }
}

/// Reads one JSON value as a TOML value; `None` for `null`.
struct Direct;

impl<'de> de::DeserializeSeed<'de> for Direct {
    type Value = Option<toml::Value>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for Direct {
    type Value = Option<toml::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Some(toml::Value::Boolean(b)))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Self::Value, E> {
        Ok(Some(toml::Value::Integer(i)))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Self::Value, E> {
        let i = i64::try_from(u).map_err(|_| E::custom("integer out of the 64-bit range"))?;
        Ok(Some(toml::Value::Integer(i)))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Self::Value, E> {
        // serde_json's own Value turns a non-finite number into null: leave that to `table`.
        if !x.is_finite() {
            return Err(E::custom("not a finite number"));
        }
        Ok(Some(toml::Value::Float(x)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Some(toml::Value::String(s.to_owned())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Some(toml::Value::String(s)))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(x) = seq.next_element_seed(Direct)? {
            items.push(x.ok_or_else(|| de::Error::custom("null inside a list"))?);
        }
        Ok(Some(toml::Value::Array(items)))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut t = toml::Table::new();
        while let Some(k) = map.next_key::<String>()? {
            match map.next_value_seed(Direct)? {
                Some(v) => t.insert(k, v),
                None => t.remove(&k),
            };
        }
        Ok(Some(toml::Value::Table(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_are_left_out_and_types_kept() {
        let back =
            document(r#"{"a": 1, "b": 1.0, "c": null, "d": [{"x": "1ms", "y": null}], "e": true}"#)
                .unwrap();
        assert_eq!(back["a"], toml::Value::Integer(1));
        assert_eq!(back["b"], toml::Value::Float(1.0));
        assert!(!back.contains_key("c"));
        assert_eq!(
            back["d"].as_array().unwrap()[0].as_table().unwrap().len(),
            1
        );
        assert_eq!(back["e"], toml::Value::Boolean(true));
    }

    /// The direct reading and the one that keeps paths agree, member for member, on
    /// repeated members and nulls; what the direct one refuses, the other reads or names.
    #[test]
    fn the_direct_reading_is_the_tracked_one() {
        let text = r#"{"a": 1, "a": null, "b": [1, 2.5, "x"], "b": {"c": null, "c": -3},
            "d": null, "d": [true], "e": {"f": [{"g": 0}]}}"#;
        let slow = |t: &str| match serde_json::from_str(t).unwrap() {
            serde_json::Value::Object(m) => table(m, ""),
            _ => unreachable!(),
        };
        let read = direct(text).unwrap();
        assert_eq!(read, slow(text).unwrap());
        assert!(!read.contains_key("a"));
        assert_eq!(read["b"]["c"], toml::Value::Integer(-3));
        // A null in a list that a later member replaces: only the tracked reading takes it.
        let replaced = r#"{"a": [null], "a": 1}"#;
        assert!(direct(replaced).is_err());
        assert_eq!(document(replaced).unwrap()["a"], toml::Value::Integer(1));
    }

    #[test]
    fn bad_documents_are_named_errors() {
        let e = document(r#"{"flows": [{"n": 18446744073709551615}]}"#).unwrap_err();
        assert_eq!(e.0[0].path, "flows[0].n");
        assert_eq!(e.0[0].message, "integer out of the 64-bit range");
        let e = document(r#"{"a": [1, null]}"#).unwrap_err();
        assert_eq!(e.0[0].path, "a[1]");
        assert!(document("[1]").is_err());
        assert!(document("{").unwrap_err().0[0]
            .message
            .starts_with("JSON syntax error"));
    }

    /// Every example scenario (a profile, DiffServ edges, a switch, repeats among them) reads as the
    /// same scenario through JSON as through TOML (`parse` tells them apart).
    #[test]
    fn example_scenarios_read_the_same_through_json() {
        for text in [
            include_str!("../../../../scenarios/example.toml"),
            include_str!("../../../../scenarios/tcp_dumbbell.toml"),
            include_str!("../../../../scenarios/diffserv_bio.toml"),
            include_str!("../../../../scenarios/diffserv_urio.toml"),
            include_str!("../../../../scenarios/cioq_switch.toml"),
            // [[repeat]] crosses as JSON too, uniform draws included.
            include_str!("../../../../scenarios/dumbbell_10000.toml"),
        ] {
            let doc: toml::Table = text.parse().unwrap();
            let json = serde_json::to_string(&doc).unwrap();
            let via_json = crate::scenario::load(&json).unwrap();
            assert_eq!(
                via_json.to_toml(),
                crate::scenario::load(text).unwrap().to_toml()
            );
        }
    }
}
