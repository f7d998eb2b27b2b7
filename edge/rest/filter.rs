//! The filter parameters shared by the responses list, the export and the summary:
//! `q`, `answers[<field>][<operator>]`, `source`, `device_type`, `browser`, `os`. The
//! edge reads their syntax into a `ResponseFilter`; what they mean (which field, which
//! values a field can have) is the core's to check.

use crate::rest::query;
use forms::pb;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};

/// The filter of a query string.
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub(crate) struct FilterQuery {
    /// Full-text search across the answers: case and accents ignored, a part of a word
    /// matches (`lovel` finds "Lovelace"); an email address, or a phone number written
    /// with its + and country code, matches an answer equal to it. At most 200
    /// characters.
    #[param(max_length = 200)]
    q: Option<String>,
    /// Conditions on answers, `answers[<field id or ref>][<operator>]=<value>`, all of
    /// which must hold. Operators: `eq` (a text ignoring case and accents; a choice by
    /// option id or label; a multiple choice that includes it), `in` (any of
    /// comma-separated values), `contains` (text), `answered` (`true` or `false`),
    /// `gte`, `lte`, `gt`, `lt` (numbers, ratings, scales, dates as YYYY-MM-DD).
    #[serde(default, deserialize_with = "answer_conditions")]
    #[param(style = DeepObject, explode, value_type = Option<HashMap<String, AnswerConditions>>)]
    answers: Vec<pb::AnswerFilter>,
    /// Only responses created through the API (`api`) or submitted from a form page
    /// (`form`).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    source: Option<SourceName>,
    /// Only responses from this kind of device (desktop, mobile, tablet, bot,
    /// appliance), ignoring case.
    device_type: Option<String>,
    /// Only responses from this browser (e.g. `Chrome`), ignoring case.
    browser: Option<String>,
    /// Only responses from this operating system (e.g. `iOS`), ignoring case.
    os: Option<String>,
    /// Only responses answered in this language (e.g. `de`), ignoring case.
    language: Option<String>,
}

/// The conditions on one field's answer.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)] // documents `answers[<field>]`
pub(crate) struct AnswerConditions {
    eq: Option<String>,
    /// Comma-separated values.
    #[serde(rename = "in")]
    any_of: Option<String>,
    contains: Option<String>,
    /// `true` or `false`.
    answered: Option<String>,
    gte: Option<String>,
    lte: Option<String>,
    gt: Option<String>,
    lt: Option<String>,
}

/// A channel responses come through.
#[derive(Deserialize, ToSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SourceName {
    /// Created through the API.
    Api,
    /// Submitted from a form page (hosted, or your own in endpoint mode).
    Form,
}

impl FilterQuery {
    /// The filter as the core reads it; `None` when nothing is filtered.
    pub(crate) fn into_pb(self) -> Option<pb::ResponseFilter> {
        let filter = pb::ResponseFilter {
            q: self.q.unwrap_or_default(),
            answers: self.answers,
            source: match self.source {
                None => pb::ResponseSource::Unspecified,
                Some(SourceName::Api) => pb::ResponseSource::Api,
                Some(SourceName::Form) => pb::ResponseSource::Form,
            }
            .into(),
            device_type: self.device_type.unwrap_or_default(),
            browser: self.browser.unwrap_or_default(),
            os: self.os.unwrap_or_default(),
            language: self.language.unwrap_or_default(),
            ids: Vec::new(),
        };
        (filter != pb::ResponseFilter::default()).then_some(filter)
    }
}

/// `answers[<field>][<operator>]=<value>` as conditions, in the order given.
fn answer_conditions<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<pb::AnswerFilter>, D::Error> {
    let given = BTreeMap::<String, BTreeMap<String, String>>::deserialize(deserializer)
        .map_err(|_| de::Error::custom("must be written answers[<field>][<operator>]=<value>"))?;
    let mut out = Vec::new();
    for (field, operators) in given {
        for (name, value) in operators {
            let (operator, values) = match name.as_str() {
                "eq" => (pb::AnswerOperator::Equals, vec![value]),
                "in" => (
                    pb::AnswerOperator::AnyOf,
                    value.split(',').map(str::to_owned).collect(),
                ),
                "contains" => (pb::AnswerOperator::Contains, vec![value]),
                "answered" => match value.trim() {
                    "true" => (pb::AnswerOperator::Answered, Vec::new()),
                    "false" => (pb::AnswerOperator::NotAnswered, Vec::new()),
                    _ => {
                        return Err(de::Error::custom(format!(
                            "[{field}][answered] must be true or false, got {value:?}"
                        )));
                    }
                },
                "gte" => (pb::AnswerOperator::AtLeast, vec![value]),
                "lte" => (pb::AnswerOperator::AtMost, vec![value]),
                "gt" => (pb::AnswerOperator::GreaterThan, vec![value]),
                "lt" => (pb::AnswerOperator::LessThan, vec![value]),
                _ => {
                    return Err(de::Error::custom(format!(
                        "[{field}][{name}]: the operator must be eq, in, contains, answered, \
                         gte, lte, gt or lt"
                    )));
                }
            };
            out.push(pb::AnswerFilter {
                field: field.clone(),
                operator: operator.into(),
                values,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(q: &str) -> Result<Option<pb::ResponseFilter>, String> {
        query::parse::<FilterQuery>(q).map(FilterQuery::into_pb)
    }

    #[test]
    fn nothing_given_filters_nothing() {
        assert_eq!(filter(""), Ok(None));
        assert_eq!(filter("page=2"), Ok(None));
    }

    #[test]
    fn each_parameter_reaches_the_filter() {
        let f = filter(
            "q=lovel&source=form&device_type=mobile&browser=Chrome&os=iOS\
             &answers[colour][in]=red,blue&answers[stars][gte]=4&answers[email][answered]=false",
        )
        .ok()
        .flatten()
        .unwrap_or_default();
        assert_eq!(f.q, "lovel");
        assert_eq!(f.source(), pb::ResponseSource::Form);
        assert_eq!(
            (f.device_type.as_str(), f.browser.as_str(), f.os.as_str()),
            ("mobile", "Chrome", "iOS")
        );
        let answers: Vec<(&str, pb::AnswerOperator, Vec<&str>)> = f
            .answers
            .iter()
            .map(|a| {
                (
                    a.field.as_str(),
                    a.operator(),
                    a.values.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            answers,
            [
                ("colour", pb::AnswerOperator::AnyOf, vec!["red", "blue"]),
                ("email", pb::AnswerOperator::NotAnswered, vec![]),
                ("stars", pb::AnswerOperator::AtLeast, vec!["4"]),
            ]
        );
    }

    #[test]
    fn bad_syntax_is_refused_naming_the_parameter() {
        query::assert_refused::<FilterQuery>(&[
            ("source=web", "source must be api or form, got \"web\""),
            (
                "answers[a][near]=1",
                "answers [a][near]: the operator must be eq, in, contains, answered, gte, lte, gt or lt",
            ),
            (
                "answers[a][answered]=yes",
                "answers [a][answered] must be true or false, got \"yes\"",
            ),
            (
                "answers=1",
                "answers must be written answers[<field>][<operator>]=<value>",
            ),
            (
                "answers[a]=1",
                "answers.a must be written answers[<field>][<operator>]=<value>",
            ),
        ]);
    }
}
