//! Filters of a response list, export or summary: which responses meet the conditions
//! a caller gives (a search, conditions on answers, the channel, the device).
//!
//! The rule: every condition given must hold; an empty filter selects every response.
//! A condition is checked against the form's fields here, once, and turned into a
//! [`Filter`] whose values are normalised as answers are stored (an option id, a
//! number, a `YYYY-MM-DD` date, E.164 for a phone), so that SQL only compares
//! (`store::selection` writes it). A bad condition is refused naming it, as
//! `answers[<field>][<operator>]`, `q`, `source`...: the names of the REST query.

use crate::error::CoreError;
use crate::forms::logic;
use crate::forms::{Field, FieldKind};
use crate::pb;
use serde_json::{Map, Value, json};

/// Longest search text, in characters.
pub(crate) const MAX_QUERY: usize = 200;
/// Most conditions on answers in one filter.
pub(crate) const MAX_CONDITIONS: usize = 20;
/// Most values of one `any_of`.
pub(crate) const MAX_ANY_OF: usize = 100;
/// Longest device, browser or OS name.
const MAX_NAME: usize = 100;

/// A checked filter. `Default` selects everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub search: Option<Search>,
    /// The choice options whose label the search finds (`"field id", "option id"`): a
    /// response that picked one is found too, as the answers store the option's id.
    /// Read from the form's labels at each search, so that a label renamed since is
    /// found by its new name, in every response stored before.
    pub search_options: Vec<String>,
    /// Only these responses (a selection of rows); empty: any.
    pub ids: Vec<uuid::Uuid>,
    pub answers: Vec<Condition>,
    pub source: Option<Source>,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub language: Option<String>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// What a search looks for in a response's answers, before case and accents are
/// folded (SQL folds both sides alike: `forms_fold`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// A part of any answer.
    Part(String),
    /// A whole answer (an email address, a phone number in international form).
    Whole(String),
}

/// The channel a response came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Api,
    Form,
}

/// One condition on the answer to `field` (a field id).
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub field: String,
    pub test: Test,
}

/// How an answer is tested.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// The answers object contains one of these objects (`@>`): equals and any of,
    /// for values compared exactly (choices, numbers, dates, booleans, phones).
    Holds(Vec<Value>),
    /// The text answer is this, ignoring case and accents.
    Is(String),
    /// The text answer contains this, ignoring case and accents.
    Contains(String),
    Answered,
    NotAnswered,
    /// The answer compares with the value so (numbers and dates).
    Compare(Compare, Value),
}

/// A range comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    AtLeast,
    AtMost,
    Greater,
    Less,
}

/// The filter `f` of a form with `fields`, checked; `None` selects everything.
pub(crate) fn parse(f: Option<&pb::ResponseFilter>, fields: &[Field]) -> Result<Filter, CoreError> {
    let Some(f) = f else {
        return Ok(Filter::default());
    };
    if f.answers.len() > MAX_CONDITIONS {
        return Err(CoreError::Validation(format!(
            "answers: at most {MAX_CONDITIONS} conditions on answers"
        )));
    }
    let search = search(&f.q)?;
    Ok(Filter {
        search_options: search
            .as_ref()
            .map(|s| match s {
                Search::Part(text) => crate::responses::search::options_found(text, false, fields),
                Search::Whole(text) => crate::responses::search::options_found(text, true, fields),
            })
            .unwrap_or_default(),
        search,
        ids: ids(&f.ids)?,
        answers: f
            .answers
            .iter()
            .map(|a| condition(a, fields))
            .collect::<Result<_, _>>()?,
        source: match pb::ResponseSource::try_from(f.source) {
            Ok(pb::ResponseSource::Unspecified) => None,
            Ok(pb::ResponseSource::Api) => Some(Source::Api),
            Ok(pb::ResponseSource::Form) => Some(Source::Form),
            Err(_) => return Err(CoreError::validation("source must be api or form")),
        },
        device_type: name(&f.device_type, "device_type")?,
        browser: name(&f.browser, "browser")?,
        os: name(&f.os, "os")?,
        language: name(&f.language, "language")?,
    })
}

/// The ids of a selection: response UUIDs, at most [`MAX_ANY_OF`].
fn ids(ids: &[String]) -> Result<Vec<uuid::Uuid>, CoreError> {
    if ids.len() > MAX_ANY_OF {
        return Err(CoreError::Validation(format!(
            "ids: at most {MAX_ANY_OF} responses"
        )));
    }
    ids.iter()
        .map(|id| {
            uuid::Uuid::parse_str(id.trim())
                .map_err(|_| CoreError::validation("ids must be response ids (UUIDs)"))
        })
        .collect()
}

fn name(value: &str, what: &str) -> Result<Option<String>, CoreError> {
    let value = value.trim();
    match value.chars().count() {
        0 => Ok(None),
        n if n > MAX_NAME => Err(CoreError::Validation(format!(
            "{what} must be at most {MAX_NAME} characters"
        ))),
        _ => Ok(Some(value.to_owned())),
    }
}

/// The search for `q`: an email address or an international phone number is looked for
/// as a whole answer; a national phone number by its digits (a trunk 0 dropped, as
/// answers are stored in international form); anything else as a part of an answer.
fn search(q: &str) -> Result<Option<Search>, CoreError> {
    let q = q.trim();
    if q.is_empty() {
        return Ok(None);
    }
    if q.chars().count() > MAX_QUERY {
        return Err(CoreError::Validation(format!(
            "q must be at most {MAX_QUERY} characters"
        )));
    }
    if crate::responses::is_email(q) {
        return Ok(Some(Search::Whole(q.to_owned())));
    }
    if let Some(phone) = phone_digits(q) {
        return Ok(Some(match phone.strip_prefix('+') {
            Some(_) => Search::Whole(phone),
            None => Search::Part(phone.strip_prefix('0').unwrap_or(&phone).to_owned()),
        }));
    }
    Ok(Some(Search::Part(q.to_owned())))
}

/// `q` as a phone number's digits (with its leading +), when it is written as one:
/// digits and the usual separators only, 7 to 15 digits.
fn phone_digits(q: &str) -> Option<String> {
    let body = q.strip_prefix('+').unwrap_or(q);
    if !body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')'))
    {
        return None;
    }
    let digits: String = body.chars().filter(char::is_ascii_digit).collect();
    if !(7..=15).contains(&digits.len()) {
        return None;
    }
    Some(if q.starts_with('+') {
        format!("+{digits}")
    } else {
        digits
    })
}

/// The REST name of a condition, by which a refusal names it.
fn at(a: &pb::AnswerFilter) -> String {
    let op = match a.operator() {
        pb::AnswerOperator::Unspecified => "?",
        pb::AnswerOperator::Equals => "eq",
        pb::AnswerOperator::AnyOf => "in",
        pb::AnswerOperator::Contains => "contains",
        pb::AnswerOperator::Answered | pb::AnswerOperator::NotAnswered => "answered",
        pb::AnswerOperator::AtLeast => "gte",
        pb::AnswerOperator::AtMost => "lte",
        pb::AnswerOperator::GreaterThan => "gt",
        pb::AnswerOperator::LessThan => "lt",
    };
    format!("answers[{}][{op}]", a.field)
}

fn condition(a: &pb::AnswerFilter, fields: &[Field]) -> Result<Condition, CoreError> {
    let at = at(a);
    let refuse = |why: &str| CoreError::Validation(format!("{at} {why}"));
    let wanted = a.field.trim();
    let field = fields
        .iter()
        .filter(|f| f.kind != FieldKind::PageBreak)
        .find(|f| f.id.to_string() == wanted || f.r#ref.as_deref() == Some(wanted))
        .ok_or_else(|| refuse("names no field of the form (give a field's id or ref)"))?;
    let op =
        pb::AnswerOperator::try_from(a.operator).map_err(|_| refuse("has an unknown operator"))?;
    use FieldKind as K;
    use pb::AnswerOperator as Op;
    let applies = match op {
        Op::Unspecified => return Err(refuse("has no operator")),
        Op::Answered | Op::NotAnswered => true,
        Op::Equals | Op::AnyOf => field.kind != K::FileUpload,
        Op::Contains => field.kind.is_text() || field.kind == K::MultipleChoice,
        Op::AtLeast | Op::AtMost | Op::GreaterThan | Op::LessThan => field.kind.is_ordered(),
    };
    if !applies {
        return Err(refuse(&format!(
            "does not apply to {} fields",
            field.kind.as_str()
        )));
    }
    let values: Vec<&str> = a.values.iter().map(|v| v.trim()).collect();
    let one = || match values.as_slice() {
        [v] => Ok(*v),
        _ => Err(refuse("takes one value")),
    };
    let test = match op {
        Op::Answered | Op::NotAnswered if !values.is_empty() => {
            return Err(refuse("takes no value"));
        }
        Op::Answered => Test::Answered,
        Op::NotAnswered => Test::NotAnswered,
        Op::Contains if field.kind.is_text() => Test::Contains(text(one()?, &refuse)?),
        Op::Equals if field.kind.is_text() && field.kind != K::Phone => {
            Test::Is(text(one()?, &refuse)?)
        }
        Op::Equals | Op::Contains => {
            Test::Holds(vec![holds(field, one()?).map_err(|w| refuse(&w))?])
        }
        Op::AnyOf => {
            if values.is_empty() || values.len() > MAX_ANY_OF {
                return Err(refuse(&format!("takes 1 to {MAX_ANY_OF} values")));
            }
            Test::Holds(
                values
                    .iter()
                    .map(|v| holds(field, v))
                    .collect::<Result<_, _>>()
                    .map_err(|w| refuse(&w))?,
            )
        }
        Op::AtLeast | Op::AtMost | Op::GreaterThan | Op::LessThan => {
            let compare = match op {
                Op::AtLeast => Compare::AtLeast,
                Op::AtMost => Compare::AtMost,
                Op::GreaterThan => Compare::Greater,
                _ => Compare::Less,
            };
            Test::Compare(compare, operand(field, one()?).map_err(|w| refuse(&w))?)
        }
        Op::Unspecified => return Err(refuse("has no operator")),
    };
    Ok(Condition {
        field: field.id.to_string(),
        test,
    })
}

fn text(v: &str, refuse: &dyn Fn(&str) -> CoreError) -> Result<String, CoreError> {
    match v.chars().count() {
        1..=MAX_QUERY => Ok(v.to_owned()),
        _ => Err(refuse(&format!(
            "must be text of 1 to {MAX_QUERY} characters"
        ))),
    }
}

/// `v` as the stored form of an answer of `field`, through the same reading as a
/// condition's value of the form's logic (an option by id or label, a whole rating
/// within its stars, a date, E.164...).
fn operand(field: &Field, v: &str) -> Result<Value, String> {
    let typed = match field.kind {
        FieldKind::Number | FieldKind::Rating | FieldKind::Scale => {
            match v.parse::<serde_json::Number>() {
                Ok(n) => Value::Number(n),
                Err(_) => return Err("must be a number".to_owned()),
            }
        }
        FieldKind::Checkbox => match v {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err("must be true or false".to_owned()),
        },
        _ => Value::String(v.to_owned()),
    };
    logic::operand(field, &typed)
}

/// The object an answers object contains when `field`'s answer is (or, for a multiple
/// choice, includes) `v`.
fn holds(field: &Field, v: &str) -> Result<Value, String> {
    let value = operand(field, v)?;
    let mut object = Map::new();
    let answer = if field.kind == FieldKind::MultipleChoice {
        json!([value])
    } else {
        value
    };
    object.insert(field.id.to_string(), answer);
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::FieldOption;
    use uuid::Uuid;

    fn field(kind: FieldKind, r: &str) -> Field {
        Field {
            id: Uuid::new_v4(),
            kind,
            label: r.to_owned(),
            r#ref: Some(r.to_owned()),
            options: if kind.has_options() {
                vec![
                    FieldOption {
                        id: "red".into(),
                        label: "Red".into(),
                    },
                    FieldOption {
                        id: "blue".into(),
                        label: "Blue".into(),
                    },
                ]
            } else {
                Vec::new()
            },
            ..Field::default()
        }
    }

    fn answer(field: &str, op: pb::AnswerOperator, values: &[&str]) -> pb::AnswerFilter {
        pb::AnswerFilter {
            field: field.to_owned(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn one(fields: &[Field], a: pb::AnswerFilter) -> Result<Test, String> {
        let f = pb::ResponseFilter {
            answers: vec![a],
            ..Default::default()
        };
        parse(Some(&f), fields)
            .map(|mut f| f.answers.remove(0).test)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_search_finds_the_options_whose_label_it_finds() {
        let fields = [
            field(FieldKind::SingleChoice, "colour"),
            field(FieldKind::ShortText, "name"),
        ];
        let found = |q: &str| {
            let f = pb::ResponseFilter {
                q: q.into(),
                ..Default::default()
            };
            parse(Some(&f), &fields).map(|f| f.search_options)
        };
        let red = || vec!["red".to_owned()];
        assert_eq!(found("RÉ").ok(), Some(red()));
        assert_eq!(found("green").ok(), Some(vec![]));
        let ids = |ids: Vec<String>| {
            let f = pb::ResponseFilter {
                ids,
                ..Default::default()
            };
            parse(Some(&f), &fields).map(|f| f.ids.len())
        };
        assert!(ids(vec!["not-an-id".into()]).is_err());
        assert_eq!(ids(vec![Uuid::new_v4().to_string()]).ok(), Some(1));
        assert!(ids(vec![Uuid::new_v4().to_string(); MAX_ANY_OF + 1]).is_err());
    }

    #[test]
    fn searches_read_emails_and_phones_whole() {
        let s = |q: &str| search(q).ok().flatten();
        assert_eq!(s("  "), None);
        assert_eq!(s("lovel"), Some(Search::Part("lovel".into())));
        assert_eq!(
            s("ada@example.com"),
            Some(Search::Whole("ada@example.com".into()))
        );
        assert_eq!(
            s("+44 20 7946-0958"),
            Some(Search::Whole("+442079460958".into()))
        );
        assert_eq!(s("020 7946 0958"), Some(Search::Part("2079460958".into())));
        // Too few digits to be a phone number: a part of an answer, as typed.
        assert_eq!(s("12 34"), Some(Search::Part("12 34".into())));
        assert!(search(&"x".repeat(MAX_QUERY + 1)).is_err());
    }

    #[test]
    fn conditions_are_typed_by_their_field() {
        use pb::AnswerOperator as Op;
        let fields = [
            field(FieldKind::SingleChoice, "colour"),
            field(FieldKind::MultipleChoice, "colours"),
            field(FieldKind::Rating, "stars"),
            field(FieldKind::ShortText, "name"),
            field(FieldKind::Date, "day"),
        ];
        let id = |i: usize| fields[i].id.to_string();
        // An option by label is its id; a multiple choice includes it.
        assert_eq!(
            one(&fields, answer("colour", Op::Equals, &["Blue"])),
            Ok(Test::Holds(vec![json!({ id(0): "blue" })]))
        );
        assert_eq!(
            one(&fields, answer(&id(1), Op::AnyOf, &["red", "blue"])),
            Ok(Test::Holds(vec![
                json!({ id(1): ["red"] }),
                json!({ id(1): ["blue"] })
            ]))
        );
        assert_eq!(
            one(&fields, answer("stars", Op::AtLeast, &["4"])),
            Ok(Test::Compare(Compare::AtLeast, json!(4)))
        );
        assert_eq!(
            one(&fields, answer("name", Op::Equals, &["Ada"])),
            Ok(Test::Is("Ada".into()))
        );
        assert_eq!(
            one(&fields, answer("day", Op::LessThan, &["2026-01-31"])),
            Ok(Test::Compare(Compare::Less, json!("2026-01-31")))
        );
        // Refusals name the condition as the REST query does.
        let refused = |a, needle: &str| {
            let why = one(&fields, a).expect_err("refused");
            assert!(why.contains(needle), "{why} lacks {needle}");
        };
        refused(
            answer("nope", Op::Answered, &[]),
            "answers[nope][answered] names no field",
        );
        refused(
            answer("stars", Op::AtLeast, &["9"]),
            "answers[stars][gte] must be a whole number from 1 to 5",
        );
        refused(answer("stars", Op::AtLeast, &["x"]), "must be a number");
        refused(
            answer("name", Op::AtLeast, &["1"]),
            "does not apply to short_text",
        );
        refused(
            answer("colour", Op::Equals, &["green"]),
            "must be one of the field's options",
        );
        refused(answer("colour", Op::Answered, &["x"]), "takes no value");
        refused(answer("colour", Op::Equals, &[]), "takes one value");
        refused(answer("colour", Op::Unspecified, &[]), "has no operator");
    }
}
