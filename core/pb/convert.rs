//! JSON <-> `google.protobuf.Struct`/`Value` and time <-> `google.protobuf.Timestamp`;
//! a field's name besides its id (`slug`), which the edges and the core share.
//!
//! `Struct` carries every number as a double, so a JSON `3` would come back as `3.0`.
//! Converting back to JSON restores integral numbers (up to 2^53, where doubles stop
//! being exact) so that answers and settings round-trip with their types.

use chrono::{DateTime, SecondsFormat, Utc};
use prost_types::{ListValue, Struct, Timestamp, Value, value::Kind};
use serde_json::{Map, Number, Value as Json};

/// A field's key besides its id: its label in lower case, each run of other characters
/// than letters and digits made one `_` (`UTM source` → `utm_source`). Endpoint mode
/// reads posts by it, the hosted page prefills from the URL query by it and the share
/// panel's snippet names its inputs by it: one rule, so that one name works everywhere.
pub fn slug(label: &str) -> String {
    let mut slug = String::with_capacity(label.len());
    for c in label.trim().chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('_') {
            slug.push('_');
        }
    }
    slug.trim_end_matches('_').to_owned()
}

/// Largest integer a double represents exactly.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// A JSON object as a protobuf `Struct`.
pub fn object_to_struct(object: &Map<String, Json>) -> Struct {
    Struct {
        fields: object
            .iter()
            .map(|(k, v)| (k.clone(), json_to_value(v)))
            .collect(),
    }
}

/// A JSON value as a protobuf `Value`.
pub fn json_to_value(json: &Json) -> Value {
    let kind = match json {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(*b),
        Json::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        Json::String(s) => Kind::StringValue(s.clone()),
        Json::Array(items) => Kind::ListValue(ListValue {
            values: items.iter().map(json_to_value).collect(),
        }),
        Json::Object(map) => Kind::StructValue(object_to_struct(map)),
    };
    Value { kind: Some(kind) }
}

/// A protobuf `Struct` as a JSON object, integral numbers restored.
pub fn struct_to_object(s: &Struct) -> Map<String, Json> {
    s.fields
        .iter()
        .map(|(k, v)| (k.clone(), value_to_json(v)))
        .collect()
}

/// A protobuf `Value` as JSON, integral numbers restored. A value without a kind is null.
pub fn value_to_json(value: &Value) -> Json {
    match &value.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        Some(Kind::NumberValue(n)) => number_to_json(*n),
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::ListValue(list)) => Json::Array(list.values.iter().map(value_to_json).collect()),
        Some(Kind::StructValue(s)) => Json::Object(struct_to_object(s)),
    }
}

/// A double as a JSON number: integral values within the exact range become integers;
/// NaN and infinities (not representable in JSON) become null.
pub fn number_to_json(n: f64) -> Json {
    if n.fract() == 0.0 && n.abs() <= MAX_EXACT {
        Json::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Json::Null, Json::Number)
    }
}

/// A UTC instant as a `Timestamp`.
pub fn timestamp(at: DateTime<Utc>) -> Timestamp {
    Timestamp {
        seconds: at.timestamp(),
        nanos: at.timestamp_subsec_nanos() as i32,
    }
}

/// A `Timestamp` as a UTC instant; `None` when it is out of range or malformed.
pub fn datetime(ts: &Timestamp) -> Option<DateTime<Utc>> {
    let nanos = u32::try_from(ts.nanos).ok()?;
    DateTime::from_timestamp(ts.seconds, nanos)
}

/// ISO 8601 UTC with millisecond precision, e.g. `2026-11-22T03:13:10.123Z`.
pub fn iso8601(ts: &Timestamp) -> Option<String> {
    datetime(ts).map(rfc3339)
}

/// An instant as everywhere in the API, webhooks and exports: RFC 3339 UTC with
/// milliseconds, e.g. `2026-11-22T03:13:10.123Z`.
pub fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trip_keeps_integers_and_fractions() {
        let original =
            json!({"a": 3, "b": 2.5, "c": [1, "x", null, true], "d": {"e": -7}, "f": 1e300});
        let Json::Object(map) = &original else {
            panic!("object literal")
        };
        let back = Json::Object(struct_to_object(&object_to_struct(map)));
        assert_eq!(back, original);
        assert_eq!(back["a"].to_string(), "3");
    }

    #[test]
    fn timestamps_print_milliseconds_in_utc() {
        let at = DateTime::from_timestamp(1_790_000_000, 123_456_789).expect("valid instant");
        assert_eq!(
            iso8601(&timestamp(at)).as_deref(),
            Some("2026-09-21T14:13:20.123Z")
        );
        assert!(
            datetime(&Timestamp {
                seconds: 0,
                nanos: -1
            })
            .is_none()
        );
    }
}
