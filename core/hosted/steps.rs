//! One question at a time (`settings.one_question_at_a_time`): the hosted page shows
//! each question as its own step. Without script a step is a page, so the core splits
//! the form here, before any page logic sees it: a page break (without a title) is put
//! before every question that is not the first of its page. Everything page-shaped —
//! progress, Back keeping answers, conditions, resume — then works on steps unchanged.
//! The stored form is untouched; the answers are the same fields' answers.

use crate::forms::{Field, FieldKind, Form};
use serde_json::Value;
use uuid::Uuid;

/// The settings key that turns steps on.
pub(crate) const KEY: &str = "one_question_at_a_time";

/// Mixed into a question's id to name the step break put before it: the same break
/// on every request, so a page number means the same step across posts.
const STEP_MARK: u128 = 0x5354_4550_5354_4550_5354_4550_5354_4550;

/// Whether `form` is shown one question at a time.
pub(crate) fn on(form: &Form) -> bool {
    form.settings.get(KEY).and_then(Value::as_bool) == Some(true)
}

/// Splits `form` into one question per page when it asks for it.
pub(crate) fn apply(form: &mut Form) {
    if on(form) {
        form.fields = split(std::mem::take(&mut form.fields));
    }
}

/// `fields` with a break before every question that is not the first of its page. The
/// break carries its page's conditions and the question's own, so a step whose question
/// is hidden is skipped (and not shown empty).
fn split(fields: Vec<Field>) -> Vec<Field> {
    let mut out = Vec::with_capacity(fields.len() * 2);
    let mut page_conditions = Vec::new();
    let mut has_question = false;
    for field in fields {
        match field.kind {
            FieldKind::PageBreak => {
                page_conditions.clone_from(&field.show_if);
                has_question = false;
            }
            // Never shown: it rides along with the step it stands on.
            FieldKind::Hidden => {}
            _ if has_question => {
                let mut show_if = page_conditions.clone();
                show_if.extend(field.show_if.iter().cloned());
                out.push(Field {
                    id: Uuid::from_u128(field.id.as_u128() ^ STEP_MARK),
                    kind: FieldKind::PageBreak,
                    show_if,
                    ..Field::default()
                });
            }
            _ => has_question = true,
        }
        out.push(field);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(kind: FieldKind, n: u128) -> Field {
        Field {
            id: Uuid::from_u128(n),
            kind,
            ..Field::default()
        }
    }

    #[test]
    fn every_question_after_the_first_of_a_page_gets_its_own_page() {
        let fields = vec![
            field(FieldKind::ShortText, 1),
            field(FieldKind::Hidden, 2),
            field(FieldKind::Email, 3),
            field(FieldKind::PageBreak, 4),
            field(FieldKind::Rating, 5),
            field(FieldKind::LongText, 6),
        ];
        let kinds: Vec<FieldKind> = split(fields).iter().map(|f| f.kind).collect();
        use FieldKind::*;
        assert_eq!(
            kinds,
            [
                ShortText, Hidden, PageBreak, Email, PageBreak, Rating, PageBreak, LongText
            ]
        );
    }

    #[test]
    fn step_breaks_are_stable_and_distinct_from_the_questions() {
        let one = split(vec![
            field(FieldKind::ShortText, 1),
            field(FieldKind::Email, 3),
        ]);
        let two = split(vec![
            field(FieldKind::ShortText, 1),
            field(FieldKind::Email, 3),
        ]);
        assert_eq!(one[1].id, two[1].id);
        assert!(one.iter().filter(|f| f.id == one[1].id).count() == 1);
    }
}
