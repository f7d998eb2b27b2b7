//! Query strings: one serde type per route's query, which also documents it
//! (`utoipa::IntoParams`), read by one extractor, `Query`. A value that does not parse
//! is refused with 422 VALIDATION_ERROR naming the parameter (`page must be an integer,
//! got "abc"`), accounted by the core like any refusal of the edge.
//!
//! Every query string is read alike: a repeated parameter counts once, with its last
//! value (as with most web frameworks); unknown parameters are ignored. A name with
//! brackets, `base[key][op]=value` (OpenAPI's deepObject, as Stripe and qs write it), is
//! an entry of the map parameter `base`: key, then op, then the value (which then
//! replaces a plain `base=` parameter). Each kind of
//! value has its reader below, for `#[serde(default, deserialize_with = "...")]`; a
//! plain `Option<String>` takes the value as sent, even empty.

use crate::http::call::Call;
use crate::http::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::Response;
use forms::pb::{self, convert};
use serde::de::value::{Error, MapDeserializer, StrDeserializer};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use std::collections::HashSet;
use std::fmt;

/// The query string as `T`.
pub(crate) struct Query<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for Query<T> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match parse(parts.uri.query().unwrap_or("")) {
            Ok(query) => Ok(Self(query)),
            Err(why) => Err(Call::from_parts(parts)
                .reject(state, pb::ErrorReason::ValidationError, why)
                .await),
        }
    }
}

/// The query string as `T`, or the refusal's message: the parameter's name, then what
/// its reader says of the value.
pub(crate) fn parse<T: DeserializeOwned>(query: &str) -> Result<T, String> {
    // Form decoding does not fail (bytes that are not UTF-8 are replaced), so there is
    // nothing to refuse at this step.
    let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default();
    // The last value of each name, in the order of the names' last appearances: a
    // derived struct refuses a field seen twice, and the first bad value named is then
    // the first in the query string.
    let mut seen = HashSet::new();
    let mut last: Vec<(String, String)> = pairs
        .into_iter()
        .rev()
        .filter(|(name, _)| seen.insert(name.clone()))
        .collect();
    last.reverse();
    let map = MapDeserializer::<_, Error>::new(group_brackets(last).into_iter());
    serde_path_to_error::deserialize(map).map_err(|e| {
        let name = e.path().to_string();
        if name == "." {
            e.into_inner().to_string()
        } else {
            format!("{name} {}", e.into_inner())
        }
    })
}

/// `base[a][b]` as `base` and its keys `a`, `b`; `None` for a plain name (or brackets
/// that do not close, which are then part of a plain name).
fn brackets(name: &str) -> Option<(&str, Vec<&str>)> {
    let open = name.find('[')?;
    let (base, mut rest) = name.split_at(open);
    let mut keys = Vec::new();
    while !rest.is_empty() {
        let inner = rest.strip_prefix('[')?;
        let close = inner.find(']')?;
        keys.push(&inner[..close]);
        rest = &inner[close + 1..];
    }
    (!base.is_empty()).then_some((base, keys))
}

/// The parameters with bracketed names gathered under their base name, as nested maps
/// in the order their keys first appear; plain names as they are.
fn group_brackets(pairs: Vec<(String, String)>) -> Vec<(String, Raw)> {
    let mut out: Vec<(String, Raw)> = Vec::new();
    let mut grouped = HashSet::new();
    for (name, value) in pairs {
        let Some((base, keys)) = brackets(&name) else {
            if !grouped.contains(&name) {
                out.push((name, Raw::Text(value)));
            }
            continue;
        };
        if grouped.insert(base.to_owned()) {
            out.retain(|(n, _)| n != base);
            out.push((base.to_owned(), Raw::Map(Vec::new())));
        }
        let mut at = out
            .iter_mut()
            .rev()
            .find(|(n, _)| n == base)
            .map(|(_, raw)| raw);
        for key in &keys {
            at = match at {
                Some(Raw::Map(entries)) => {
                    if !entries.iter().any(|(k, _)| k == key) {
                        entries.push(((*key).to_owned(), Raw::Map(Vec::new())));
                    }
                    entries
                        .iter_mut()
                        .find(|(k, _)| k == key)
                        .map(|(_, raw)| raw)
                }
                _ => None,
            };
        }
        if let Some(slot) = at {
            // The deepest key holds the value (`base[a]=1` after `base[a][b]=2` is the
            // one sent last).
            *slot = Raw::Text(value);
        }
    }
    out
}

/// A parameter's value as sent: text, or the entries of a bracketed name. Unlike
/// serde's own string deserializer it reads into an `Option` (as `Some`), so that a
/// plain `Option<String>` field needs no reader.
enum Raw {
    Text(String),
    Map(Vec<(String, Raw)>),
}

impl<'de> Deserializer<'de> for Raw {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Self::Text(text) => visitor.visit_string(text),
            Self::Map(entries) => visitor.visit_map(MapDeserializer::new(entries.into_iter())),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, Error> for Raw {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// An integer, spaces around it allowed. Sent empty, it is refused like any other
/// value that is not an integer.
pub(crate) fn integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i32>, D::Error> {
    let raw = String::deserialize(deserializer)?;
    raw.trim()
        .parse()
        .map(Some)
        .map_err(|_| de::Error::custom(format!("must be an integer, got {raw:?}")))
}

/// An instant in RFC 3339 (ISO 8601 with a date, a time and an offset), spaces around
/// it allowed; empty means absent.
pub(crate) fn timestamp<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<prost_types::Timestamp>, D::Error> {
    let raw = String::deserialize(deserializer)?;
    if raw.is_empty() {
        return Ok(None);
    }
    chrono::DateTime::parse_from_rfc3339(raw.trim())
        .map(|at| Some(convert::timestamp(at.to_utc())))
        .map_err(|_| {
            de::Error::custom(format!(
                "must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got {raw:?}"
            ))
        })
}

/// One of the names of `T`, an enum of unit variants: its serde names, exactly as sent
/// (the names its schema documents); empty means absent.
pub(crate) fn choice<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let raw = String::deserialize(deserializer)?;
    if raw.is_empty() {
        return Ok(None);
    }
    let name: StrDeserializer<'_, Unknown> = raw.as_str().into_deserializer();
    T::deserialize(name).map(Some).map_err(|Unknown(names)| {
        de::Error::custom(match names {
            [] => format!("is not accepted, got {raw:?}"),
            names => format!("must be {}, got {raw:?}", one_of(names)),
        })
    })
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The error of reading a name into an enum: the names it accepts, which a derived
/// `Deserialize` reports on an unknown one (so that the message lists the enum's own
/// names, and no list of them is written twice).
#[derive(Debug)]
struct Unknown(&'static [&'static str]);

impl fmt::Display for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected one of {}", one_of(self.0))
    }
}

impl std::error::Error for Unknown {}

impl de::Error for Unknown {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Self(&[])
    }

    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
        Self(expected)
    }
}

/// Asserts that each query string is refused as `T` with its message: for the routes'
/// tests, that each parameter is read by its reader, under its name.
#[cfg(test)]
pub(crate) fn assert_refused<T: DeserializeOwned>(cases: &[(&str, &str)]) {
    for (query, message) in cases {
        assert_eq!(
            parse::<T>(query).err().as_deref(),
            Some(*message),
            "{query}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Color {
        Red,
        Green,
        Blue,
    }

    #[derive(Debug, Default, PartialEq, Deserialize)]
    struct Sample {
        #[serde(default, deserialize_with = "integer")]
        count: Option<i32>,
        #[serde(default, deserialize_with = "timestamp")]
        at: Option<prost_types::Timestamp>,
        #[serde(default, deserialize_with = "choice")]
        color: Option<Color>,
        text: Option<String>,
    }

    fn sample(query: &str) -> Result<Sample, String> {
        parse::<Sample>(query)
    }

    #[test]
    fn an_empty_query_is_all_absent() {
        assert_eq!(sample(""), Ok(Sample::default()));
    }

    #[test]
    fn integers_allow_spaces_and_refuse_the_rest_naming_the_parameter() {
        assert_eq!(sample("count=7").map(|s| s.count), Ok(Some(7)));
        assert_eq!(sample("count=%20-3%20").map(|s| s.count), Ok(Some(-3)));
        for (bad, sent) in [
            ("abc", "abc"),
            ("1.5", "1.5"),
            ("", ""),
            ("99999999999", "99999999999"),
        ] {
            assert_eq!(
                sample(&format!("count={bad}")),
                Err(format!("count must be an integer, got {sent:?}")),
            );
        }
    }

    #[test]
    fn timestamps_are_rfc_3339_and_empty_is_absent() {
        let at = sample("at=2026-01-31T12:00:00%2B01:00").map(|s| s.at);
        assert_eq!(
            at,
            Ok(Some(prost_types::Timestamp {
                seconds: 1_769_857_200,
                nanos: 0
            }))
        );
        assert_eq!(sample("at=").map(|s| s.at), Ok(None));
        for bad in ["yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "12345"] {
            assert_eq!(
                sample(&format!("at={bad}")),
                Err(format!(
                    "at must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got {bad:?}"
                )),
            );
        }
    }

    #[test]
    fn choices_are_the_enum_names_exactly_and_empty_is_absent() {
        assert_eq!(
            sample("color=green").map(|s| s.color),
            Ok(Some(Color::Green))
        );
        assert_eq!(sample("color=").map(|s| s.color), Ok(None));
        for bad in ["Green", "green%20", "purple"] {
            let sent = bad.replace("%20", " ");
            assert_eq!(
                sample(&format!("color={bad}")),
                Err(format!("color must be red, green or blue, got {sent:?}")),
            );
        }
    }

    #[test]
    fn text_is_taken_as_sent_even_empty() {
        assert_eq!(sample("text=").map(|s| s.text), Ok(Some(String::new())));
        assert_eq!(
            sample("text=a%20b%00c").map(|s| s.text),
            Ok(Some("a b\0c".to_owned()))
        );
    }

    #[test]
    fn the_last_of_repeated_parameters_wins() {
        assert_eq!(sample("count=x&count=2").map(|s| s.count), Ok(Some(2)));
        assert_eq!(
            sample("count=2&count=x"),
            Err("count must be an integer, got \"x\"".to_owned())
        );
    }

    #[test]
    fn unknown_parameters_are_ignored() {
        assert_eq!(
            sample("other=x&count=1&x"),
            Ok(Sample {
                count: Some(1),
                ..Sample::default()
            })
        );
    }

    #[test]
    fn the_first_bad_parameter_in_the_query_string_is_named() {
        let error = sample("color=no&count=no").expect_err("two bad values");
        assert!(error.starts_with("color "), "{error}");
        let error = sample("count=no&color=no").expect_err("two bad values");
        assert!(error.starts_with("count "), "{error}");
    }

    #[derive(Debug, Default, PartialEq, Deserialize)]
    struct Nested {
        #[serde(default)]
        answers: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
        text: Option<String>,
    }

    #[test]
    fn bracketed_names_are_entries_of_their_base() {
        let nested = parse::<Nested>(
            "answers%5Bcolour%5D%5Beq%5D=red&text=t&answers[stars][gte]=4&answers[stars][lte]=5&answers[stars][gte]=3",
        )
        .expect("read");
        let entries: Vec<(String, Vec<(String, String)>)> = nested
            .answers
            .into_iter()
            .map(|(k, ops)| (k, ops.into_iter().collect()))
            .collect();
        assert_eq!(
            entries,
            [
                (
                    "colour".to_owned(),
                    vec![("eq".to_owned(), "red".to_owned())]
                ),
                (
                    "stars".to_owned(),
                    vec![
                        ("gte".to_owned(), "3".to_owned()),
                        ("lte".to_owned(), "5".to_owned())
                    ]
                ),
            ]
        );
        assert_eq!(nested.text.as_deref(), Some("t"));
        // A plain parameter of the same name gives way to the bracketed ones; brackets
        // that do not close are a plain (unknown) name.
        let nested = parse::<Nested>("answers=x&answers[a][eq]=1&text[=y").expect("read");
        assert_eq!(nested.answers.len(), 1);
        assert_eq!(nested.text, None);
        assert!(parse::<Nested>("answers=x").is_err());
    }

    #[test]
    fn names_are_listed_in_plain_words() {
        assert_eq!(one_of(&["a"]), "a");
        assert_eq!(one_of(&["a", "b"]), "a or b");
        assert_eq!(one_of(&["a", "b", "c"]), "a, b or c");
    }
}
