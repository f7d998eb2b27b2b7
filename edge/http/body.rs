//! Request bodies: the edge's own parsing, so that every refusal (wrong media type,
//! oversized, malformed JSON, a value of the wrong JSON type) gets the SPEC envelope and
//! is still accounted by the core (query strings: `query`; paths: `rest::params`).
//!
//! Bodies are serde types, one per route, that say only the JSON shape (which property
//! is a string, an array, an object). Which properties are required, lengths, allowed
//! values are the core's rules: a body type leaves such properties `Option`al and the
//! core answers for them with its own messages.

use crate::http::call::Call;
use crate::http::server::is_body_timeout;
use crate::http::state::AppState;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use forms::pb;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde_json::Value;

/// A JSON object body of shape `T`, sent as `application/json`.
pub(crate) struct JsonBody<T>(pub T);

pub(crate) fn is_json(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The refusal message for a body that is JSON but not of the route's shape: the path
/// of the offending property first (`fields[2].label: invalid type: ...`).
fn shape_error(error: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = error.path().to_string();
    if path == "." {
        error.inner().to_string()
    } else {
        format!("{path}: {}", error.inner())
    }
}

/// Deepest nesting of arrays and objects accepted in a body. Far above any form's need,
/// well below the depth at which the gRPC message could not be decoded (prost's
/// recursion limit of 100, reached by a `Struct` nesting about half as deep).
pub(crate) const MAX_JSON_DEPTH: usize = 32;

/// How deeply `value` nests arrays and objects (a scalar is 0), without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, level)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(level + 1);
        pending.extend(children.map(|child| (child, level + 1)));
    }
    deepest
}

/// The body as `T`: first JSON syntax (any object), then its shape. Parsing into a
/// `Value` first keeps the two refusals apart, accepts only an object (a derived struct
/// would also read an array positionally) and treats a repeated key as JSON does
/// elsewhere in the edge: the last one wins.
pub(crate) fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => return Err("the request body must be a JSON object".to_owned()),
        Err(e) => return Err(format!("malformed JSON: {e}")),
    };
    if depth(&value) > MAX_JSON_DEPTH {
        return Err(format!(
            "the request body nests arrays and objects more than {MAX_JSON_DEPTH} deep"
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| shape_error(&e))
}

impl<T: DeserializeOwned + Send> FromRequest<AppState> for JsonBody<T> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let (parts, body) = req.into_parts();
        let call = Call::from_parts(&parts);
        let content_type = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        if !is_json(content_type) {
            return Err(call
                .reject(
                    state,
                    pb::ErrorReason::UnsupportedMediaType,
                    "the request body must be sent as application/json",
                )
                .await);
        }
        let bytes = match axum::body::to_bytes(body, state.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(error) if is_body_timeout(&error) => {
                let message = "the request body did not arrive in time";
                return Err(call
                    .reject(state, pb::ErrorReason::RequestTimeout, message)
                    .await);
            }
            Err(_) => {
                let message = format!(
                    "the request body is larger than {} bytes",
                    state.max_body_bytes
                );
                return Err(call
                    .reject(state, pb::ErrorReason::PayloadTooLarge, message)
                    .await);
            }
        };
        match parse(&bytes) {
            Ok(body) => Ok(Self(body)),
            Err(why) => Err(call
                .reject(state, pb::ErrorReason::ValidationError, why)
                .await),
        }
    }
}

/// A property of a partial update, in three states: absent (keep the value), `null`
/// (clear it) or a value (set it). Use it with `#[serde(default)]`, which gives `Absent`
/// when the property is missing; serde cannot tell missing from `null` with `Option`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Patch<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    /// Only called when the property is present: `null` or a `T`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(deserializer).map(|value| value.map_or(Self::Null, Self::Value))
    }
}

impl<T> Patch<T> {
    /// `None` to keep the value, `Some(None)` to clear it, `Some(Some(v))` to set it.
    pub(crate) fn into_change(self) -> Option<Option<T>> {
        match self {
            Self::Absent => None,
            Self::Null => Some(None),
            Self::Value(value) => Some(Some(value)),
        }
    }
}

/// For `#[serde(default, deserialize_with = "present")]`: a property that may be left
/// out but, when sent, must be a `T`. Unlike a plain `Option<T>`, `null` is refused
/// (unless `T` itself reads `null`, as `Value` does): for properties whose `null` would
/// otherwise silently mean "absent", e.g. `fields` or `settings`.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn depth_counts_arrays_and_objects() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!({"a": 1})), 1);
        assert_eq!(depth(&serde_json::json!({"a": [1, {"b": []}]})), 4);
        let deep = (0..MAX_JSON_DEPTH).fold(String::from("1"), |inner, _| format!("[{inner}]"));
        assert!(parse::<Value>(format!("{{\"a\": {deep}}}").as_bytes()).is_err());
        let fits = (1..MAX_JSON_DEPTH).fold(String::from("1"), |inner, _| format!("[{inner}]"));
        assert!(parse::<Value>(format!("{{\"a\": {fits}}}").as_bytes()).is_ok());
    }

    #[test]
    fn json_media_types() {
        assert!(is_json(Some("application/json")));
        assert!(is_json(Some("Application/JSON; charset=utf-8")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(Some("application/jsonp")));
        assert!(!is_json(None));
    }

    #[derive(Debug, Deserialize)]
    struct Update {
        #[serde(default)]
        note: Patch<String>,
        #[serde(default, deserialize_with = "present")]
        tags: Option<Vec<Item>>,
        #[serde(default, deserialize_with = "present")]
        extra: Option<Value>,
    }

    #[derive(Debug, Deserialize)]
    struct Item {
        #[allow(dead_code)]
        name: Option<String>,
    }

    fn update(json: &str) -> Result<Update, String> {
        parse::<Update>(json.as_bytes())
    }

    #[test]
    fn a_patch_has_three_states() {
        let absent = update("{}").expect("absent");
        assert_eq!(absent.note, Patch::Absent);
        assert_eq!(absent.note.into_change(), None);
        let null = update(r#"{"note": null}"#).expect("null");
        assert_eq!(null.note, Patch::Null);
        assert_eq!(null.note.into_change(), Some(None));
        let value = update(r#"{"note": "hi"}"#).expect("value");
        assert_eq!(value.note, Patch::Value("hi".to_owned()));
        assert_eq!(value.note.into_change(), Some(Some("hi".to_owned())));
        let wrong = update(r#"{"note": 5}"#).expect_err("a number is no string");
        assert!(
            wrong.starts_with("note: invalid type: integer `5`"),
            "{wrong}"
        );
    }

    #[test]
    fn present_refuses_null_unless_the_type_reads_it() {
        let got = update(r#"{"tags": [], "extra": null}"#).expect("valid");
        assert!(got.tags.is_some_and(|t| t.is_empty()));
        assert_eq!(got.extra, Some(Value::Null), "a JSON null is a Value");
        assert!(update("{}").expect("absent").tags.is_none());
        let null = update(r#"{"tags": null}"#).expect_err("null is not an array");
        assert!(null.starts_with("tags: invalid type: null"), "{null}");
    }

    #[test]
    fn shape_errors_name_the_property() {
        let error = update(r#"{"tags": [{"name": "a"}, {"name": 7}]}"#).expect_err("7");
        assert!(
            error.starts_with("tags[1].name: invalid type: integer `7`"),
            "{error}"
        );
        assert!(error.contains("expected a string"), "{error}");
    }

    #[test]
    fn syntax_and_non_objects_are_refused_before_the_shape() {
        for (body, expected) in [
            ("{\"note\": ", "malformed JSON"),
            ("", "malformed JSON"),
            ("[1, 2]", "must be a JSON object"),
            ("\"note\"", "must be a JSON object"),
            ("null", "must be a JSON object"),
        ] {
            let error = update(body).expect_err(body);
            assert!(error.contains(expected), "{body}: {error}");
        }
    }
}
