//! Recall on a form's page (issue 32 §3): a label, placeholder, scale end or the
//! form's description may name an earlier answer as `{{ref}}`. On a page of a form
//! with pages, the answers saved from earlier pages fill them, read as the respondent
//! saw them (an option by its label in the page's language, a checkbox as yes or no);
//! an answer of this page or a later one is not recalled (it would change as the
//! visitor types). The texts stay text: maud escapes them where they are shown.
//! The substitution itself is the core's (`forms::recall`).

use forms::notifications::words::MailWords;
use forms::pb::{self, convert};
use forms::recall;
use serde_json::{Map, Value};

/// A field's label, placeholder and scale ends, recalls filled.
type Texts = (String, Option<String>, Option<String>, Option<String>);

/// Fills the recalls of `form` (translated already into `tag`) for the page that
/// `progress` names, from the answers saved before it.
pub(super) fn recall_page(form: &mut pb::Form, progress: Option<&pb::HostedProgress>, tag: &str) {
    let has = |t: &str| recall::has_recall(t);
    let any = form.description.as_deref().is_some_and(has)
        || form.fields.iter().any(|f| {
            has(&f.label)
                || [&f.placeholder, &f.min_label, &f.max_label]
                    .into_iter()
                    .any(|t| t.as_deref().is_some_and(has))
        });
    if !any {
        return;
    }
    let current = progress.map_or(1, |p| p.page.max(1));
    let answers = progress
        .and_then(|p| p.answers.as_ref())
        .map(convert::struct_to_object)
        .unwrap_or_default();
    let earlier = earlier_answers(form, &answers, current, tag);
    let fill = |text: &str| {
        recall::recall(text, |name| {
            // A known ref with nothing earlier to recall reads as nothing.
            let known = form.fields.iter().any(|f| f.r#ref.as_deref() == Some(name));
            earlier
                .iter()
                .find(|(r, _)| r == name)
                .map(|(_, a)| a.clone())
                .or_else(|| known.then(String::new))
        })
    };
    let description = form.description.as_deref().map(fill);
    let fields: Vec<Texts> = form
        .fields
        .iter()
        .map(|f| {
            (
                fill(&f.label),
                f.placeholder.as_deref().map(fill),
                f.min_label.as_deref().map(fill),
                f.max_label.as_deref().map(fill),
            )
        })
        .collect();
    form.description = description;
    for (field, (label, placeholder, min_label, max_label)) in form.fields.iter_mut().zip(fields) {
        field.label = label;
        field.placeholder = placeholder;
        field.min_label = min_label;
        field.max_label = max_label;
    }
}

/// The answers of fields with a ref on pages before `current`, as text, by ref.
fn earlier_answers(
    form: &pb::Form,
    answers: &Map<String, Value>,
    current: i32,
    tag: &str,
) -> Vec<(String, String)> {
    let (yes, no) = MailWords::for_tag(tag).yes_no();
    let mut page = 1;
    let mut out = Vec::new();
    for field in &form.fields {
        if field.r#type == "page_break" {
            page += 1;
            continue;
        }
        if page >= current {
            break;
        }
        let (Some(name), Some(value)) = (field.r#ref.as_ref(), answers.get(&field.id)) else {
            continue;
        };
        let label = |id: &str| {
            field
                .options
                .iter()
                .find(|o| o.id == id)
                .map(|o| o.label.clone())
        };
        out.push((
            name.clone(),
            recall::answer_text(value, &label, (&yes, &no)),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(id: &str, kind: &str, label: &str, r: Option<&str>) -> pb::FormField {
        pb::FormField {
            id: id.into(),
            r#type: kind.into(),
            label: label.into(),
            r#ref: r.map(str::to_owned),
            ..Default::default()
        }
    }

    #[test]
    fn a_later_page_recalls_an_earlier_answer_and_nothing_else() {
        let mut form = pb::Form {
            fields: vec![
                field("a", "short_text", "Name {{city}}", Some("name")),
                field("p", "page_break", "Hello {{name}}", None),
                field("b", "short_text", "Where, {{name}}?", Some("city")),
                field("c", "short_text", "{{nobody}} {{city}}", None),
            ],
            ..Default::default()
        };
        let answers = json!({"a": "<b>x</b>", "b": "Köln"});
        let progress = pb::HostedProgress {
            page: 2,
            answers: Some(convert::object_to_struct(
                answers.as_object().expect("object"),
            )),
            ..Default::default()
        };
        recall_page(&mut form, Some(&progress), "en");
        let labels: Vec<&str> = form.fields.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Name ", "Hello <b>x</b>", "Where, <b>x</b>?", "{{nobody}} "]
        );
    }
}
