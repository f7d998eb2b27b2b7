//! Recall on a form's page (issue 32 §3): a label, placeholder, scale end or the
//! form's description may name an earlier answer as `{{ref}}`. On a page of a form
//! with pages, the answers saved from earlier pages fill them, in the default texts
//! and in every translation's, each read in its own language (an option by its label
//! there, a checkbox as yes or no): the edge picks the language after it has the
//! form, so every language arrives filled. An answer of this page or a later one is
//! not recalled (it would change as the visitor types); a ref no field has stays as
//! typed. The texts stay text: the page escapes them where they are shown.

use crate::forms::reading::Reading;
use crate::forms::{FieldKind, Form};
use crate::pb::{self, convert};
use crate::recall::has_recall;
use serde_json::{Map, Value};

/// Fills the recalls of `form` for the page `progress` names, from its answers.
pub(super) fn fill(form: &mut Form, progress: Option<&pb::HostedProgress>) {
    if let Some(progress) = progress {
        let answers = progress
            .answers
            .as_ref()
            .map(convert::struct_to_object)
            .unwrap_or_default();
        fill_page(form, progress.page.max(1), &answers);
    }
}

/// Fills the recalls of `form` for the page `page` (1-based) from `answers`, the
/// answers saved so far.
fn fill_page(form: &mut Form, page: i32, answers: &Map<String, Value>) {
    if !has_any(form) {
        return;
    }
    let earlier = earlier_answers(form, page, answers);
    let fields = form.fields.clone();
    let languages = form.languages.clone();
    let fill = |text: &mut String, reading: &Reading<'_>| {
        if has_recall(text) {
            *text = reading.recall(text);
        }
    };
    let fill_opt = |text: &mut Option<String>, reading: &Reading<'_>| {
        if let Some(text) = text {
            fill(text, reading);
        }
    };
    // A translation lacking a text that recalls shows the default's, read in its own
    // language (an option by its translated label): it gets that text, filled.
    for (tag, translation) in &mut form.languages.translations {
        let reading = Reading::new(&fields, &languages, &earlier, Some(tag));
        let own = |slot: &mut Option<String>, default: Option<&String>| {
            if slot.is_none() && default.is_some_and(|t| has_recall(t)) {
                *slot = default.cloned();
            }
            fill_opt(slot, &reading);
        };
        own(&mut translation.description, form.description.as_ref());
        for field in &fields {
            let defaults = [
                Some(&field.label),
                field.placeholder.as_ref(),
                field.min_label.as_ref(),
                field.max_label.as_ref(),
            ];
            let id = field.id.to_string();
            if !translation.fields.contains_key(&id)
                && !defaults.iter().flatten().any(|t| has_recall(t))
            {
                continue;
            }
            let texts = translation.fields.entry(id).or_default();
            let slots = [
                &mut texts.label,
                &mut texts.placeholder,
                &mut texts.min_label,
                &mut texts.max_label,
            ];
            for (slot, default) in slots.into_iter().zip(defaults) {
                own(slot, default);
            }
        }
    }
    let default = Reading::new(&fields, &languages, &earlier, None);
    fill_opt(&mut form.description, &default);
    for field in &mut form.fields {
        fill(&mut field.label, &default);
        for text in [
            &mut field.placeholder,
            &mut field.min_label,
            &mut field.max_label,
        ] {
            fill_opt(text, &default);
        }
    }
}

/// Whether any text the page shows recalls an answer.
fn has_any(form: &Form) -> bool {
    let has = |t: &Option<String>| t.as_deref().is_some_and(has_recall);
    has(&form.description)
        || form.fields.iter().any(|f| {
            has_recall(&f.label) || has(&f.placeholder) || has(&f.min_label) || has(&f.max_label)
        })
        || form.languages.translations.values().any(|t| {
            has(&t.description)
                || t.fields.values().any(|f| {
                    has(&f.label) || has(&f.placeholder) || has(&f.min_label) || has(&f.max_label)
                })
        })
}

/// The answers of the fields on pages before `page`.
fn earlier_answers(form: &Form, page: i32, answers: &Map<String, Value>) -> Map<String, Value> {
    let mut at = 1;
    let mut out = Map::new();
    for field in &form.fields {
        if field.kind == FieldKind::PageBreak {
            at += 1;
            continue;
        }
        if at >= page {
            break;
        }
        let id = field.id.to_string();
        if let Some(value) = answers.get(&id) {
            out.insert(id, value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::languages::translations_from_json;
    use crate::forms::{Field, FormStatus};
    use serde_json::json;
    use uuid::Uuid;

    fn field(kind: FieldKind, label: &str, r: Option<&str>) -> Field {
        Field {
            id: Uuid::new_v4(),
            kind,
            label: label.into(),
            r#ref: r.map(str::to_owned),
            ..Field::default()
        }
    }

    #[test]
    fn a_later_page_recalls_an_earlier_answer_in_every_language_and_nothing_else() {
        let fields = vec![
            field(FieldKind::ShortText, "Name {{city}}", Some("name")),
            field(FieldKind::PageBreak, "Hello {{name}}", None),
            field(FieldKind::ShortText, "Where, {{name}}?", Some("city")),
            field(FieldKind::ShortText, "{{nobody}} {{city}}", None),
        ];
        let later = fields[2].id.to_string();
        let now = chrono::Utc::now();
        let mut form = Form {
            id: Uuid::new_v4(),
            account_id: Uuid::new_v4(),
            short_id: "f".into(),
            title: "T".into(),
            description: None,
            status: FormStatus::Published,
            fields,
            settings: Map::new(),
            languages: Default::default(),
            theme: None,
            retention_days: None,
            created_at: now,
            updated_at: now,
            published_at: None,
        };
        let de = json!({"de": {"fields": {later.clone(): {"label": "Wo, {{name}}?"}}}});
        form.languages.translations = translations_from_json(de).expect("translations");
        let answers = json!({form.fields[0].id.to_string(): "<b>x</b>", later.clone(): "Köln"});
        fill_page(&mut form, 2, answers.as_object().expect("object"));
        let labels: Vec<&str> = form.fields.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Name ", "Hello <b>x</b>", "Where, <b>x</b>?", "{{nobody}} "]
        );
        let german = &form.languages.translations["de"].fields;
        assert_eq!(german[&later].label.as_deref(), Some("Wo, <b>x</b>?"));
        // A label German lacks is the default's, filled in German.
        let last = form.fields[3].id.to_string();
        assert_eq!(german[&last].label.as_deref(), Some("{{nobody}} "));
    }
}
