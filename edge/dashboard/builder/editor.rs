//! The one question open for editing (`?edit=<id>`), in its line of the list: its label,
//! then only what its kind takes (placeholder, options, bounds, file types...), its
//! reference and "required"; Save, with the save state the script keeps ("Not saved
//! yet", "Saved", "Not saved: …"); then its conditions, and Duplicate and Delete.

use super::conditions;
use super::kinds::{Bounds, Kind, kind_of};
use super::preview::bound_text;
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::Owner;
use forms::pb;
use maud::{Markup, html};

/// The editor of `form.fields[at]`; `when`: the earlier question a new condition reads.
pub(super) fn editor(
    owner: &Owner,
    form: &pb::Form,
    base: &str,
    at: usize,
    when: Option<&str>,
) -> Markup {
    let Some(field) = form.fields.get(at) else {
        return html! {};
    };
    let fid = &field.id;
    let kind = kind_of(&field.r#type);
    let question = kind.is_none_or(Kind::question);
    let p = format!("f-{fid}");
    let action = format!("{base}/fields/{fid}");
    html! {
        div class="q-editor" id="editor" {
            form method="post" action=(action) data-builder data-editor=(fid) {
                (csrf(&owner.session))
                h3 class="visually-hidden" { "Edit “" (field.label) "”" }
                label for={(p) "-label"} { @if question { "Question" } @else { "Page title" } }
                input id={(p) "-label"} name="label" type="text" required maxlength="500" value=(field.label) data-live="label";
                @if question {
                    label class="inline" {
                        input type="checkbox" name="required" value="on" checked[field.required] data-live="required";
                        "Required"
                    }
                }
                @if kind.is_none_or(Kind::placeholder) {
                    label for={(p) "-placeholder"} { "Placeholder " span class="muted" { "(optional: a hint shown in the empty box)" } }
                    input id={(p) "-placeholder"} name="placeholder" type="text" maxlength="500" value=(field.placeholder.as_deref().unwrap_or("")) data-live="placeholder";
                }
                @if kind.is_some_and(Kind::file) {
                    label for={(p) "-types"} { "Allowed file types " span class="muted" { "(extensions, comma-separated, e.g. pdf, png; empty: any)" } }
                    input id={(p) "-types"} name="allowed_types" type="text" value=(field.allowed_types.join(", "));
                    label for={(p) "-size"} { "Largest file, in MB " span class="muted" { "(up to 100; empty: the service's limit)" } }
                    input id={(p) "-size"} name="max_size_mb" type="number" min="0" max="100" step="any" value=(field.max_size_mb.map(|m| m.to_string()).unwrap_or_default());
                }
                @if let Some(kind) = kind {
                    (properties(&p, kind, Some(field)))
                }
                @if super::parse::takes_correct_answer(field) {
                    (quiz(&p, field))
                }
                details class="fold-inner" open[field.r#ref.is_some()] {
                    summary { "Reference for the API" }
                    (ref_input(&p, field.r#ref.as_deref()))
                }
                div class="actions save-row" {
                    button type="submit" { "Save question" }
                    a class="button secondary" href={(base) "#q-" (fid)} { "Close" }
                    span class="save-state muted" role="status" data-save-state {}
                }
            }
            (conditions::editor(csrf(&owner.session), base, &form.fields, at, when))
            div class="actions q-more" {
                form method="post" action={(action) "/duplicate"} data-builder {
                    (csrf(&owner.session))
                    button type="submit" class="secondary" { "Duplicate" }
                }
                form method="post" action={(action) "/remove"} data-builder data-remove=(field.label) {
                    (csrf(&owner.session))
                    button type="submit" class="danger" { "Delete" span class="visually-hidden" { " “" (field.label) "”" } }
                }
            }
            p class="muted" { "Deleting a question hides its answers from the responses that have one. A question that conditions read cannot be deleted, or moved below them, until those conditions go." }
        }
    }
}

/// The quiz's boxes: the correct answer (one of the options, for a choice) and the
/// points it scores. A form with a correct answer anywhere is a quiz: each response is
/// scored (`quiz.completed`), and the settings may show the respondent their score.
fn quiz(prefix: &str, field: &pb::FormField) -> Markup {
    let correct = field
        .correct_answer
        .as_ref()
        .map(forms::pb::convert::value_to_json)
        .map(|v| match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        })
        .unwrap_or_default();
    let points = field.points.map(|p| p.to_string()).unwrap_or_default();
    let choice = matches!(
        field.kind(),
        Some(pb::FieldKind::SingleChoice | pb::FieldKind::Dropdown)
    );
    html! {
        details class="fold-inner" open[!correct.is_empty()] {
            summary { "Quiz: correct answer and points" }
            label for={(prefix) "-correct"} {
                "Correct answer " span class="muted" { "(optional: makes the form a quiz; text compares without case)" }
            }
            @if choice {
                select id={(prefix) "-correct"} name="correct_answer" {
                    option value="" selected[correct.is_empty()] { "None (not scored)" }
                    @for option in &field.options {
                        option value=(option.id) selected[option.id == correct] { (option.label) }
                    }
                }
            } @else {
                input id={(prefix) "-correct"} name="correct_answer" type="text" maxlength="500" value=(correct);
            }
            label for={(prefix) "-points"} { "Points " span class="muted" { "(0 to 1000; empty: 1)" } }
            input id={(prefix) "-points"} name="points" type="number" min="0" max="1000" step="1" inputmode="numeric" value=(points);
        }
    }
}

/// The optional `ref` box: the owner's name for a field, which the API and conditions
/// may use.
fn ref_input(prefix: &str, value: Option<&str>) -> Markup {
    html! {
        label for={(prefix) "-ref"} {
            "Reference " span class="muted" { "(optional: a name for the API, 1 to 64 letters, digits, _ or -, unique in the form)" }
        }
        input id={(prefix) "-ref"} name="ref" type="text" maxlength="64" pattern="[A-Za-z0-9_\\-]{1,64}" value=(value.unwrap_or(""));
    }
}

/// The editors of a kind's own properties (options, "other", how many ticked, bounds,
/// end labels), filled with `field`'s when editing it. Existing options are one text
/// box each, with their id alongside (hidden): renaming an option keeps its id, so its
/// answers keep their meaning; emptying its box removes it. New options are written one
/// per line; the service gives them their ids.
fn properties(prefix: &str, kind: &Kind, field: Option<&pb::FormField>) -> Markup {
    let id = |name: &str| format!("{prefix}-{name}");
    let bound = |value: Option<&prost_types::Value>| bound_text(value);
    let min = bound(field.and_then(|f| f.min.as_ref()));
    let max = bound(field.and_then(|f| f.max.as_ref()));
    let count = |n: Option<i32>| n.map(|n| n.to_string()).unwrap_or_default();
    html! {
        @if kind.options() {
            @if let Some(field) = field {
                @if !field.options.is_empty() {
                    fieldset {
                        legend { "Options " span class="muted" { "(empty a box to remove its option)" } }
                        @for (n, option) in field.options.iter().enumerate() {
                            input type="hidden" name="option_id" value=(option.id);
                            label for=(id(&format!("opt-{n}"))) { "Option " (n + 1) }
                            input id=(id(&format!("opt-{n}"))) name="option_label" type="text" maxlength="500" value=(option.label);
                        }
                    }
                }
            }
            label for=(id("options")) {
                @if field.is_some_and(|f| !f.options.is_empty()) { "More options" } @else { "Options" }
                " " span class="muted" { "(one per line)" }
            }
            textarea id=(id("options")) name="options" rows="4" {}
            @if kind.takes_other() {
                label class="inline" {
                    input type="checkbox" name="allow_other" value="on" checked[field.is_some_and(|f| f.allow_other)];
                    "Offer “Other”, with free text"
                    @if field.is_none() { " " span class="muted" { "(not for a dropdown)" } }
                }
            }
        }
        @if kind.multiple() {
            label for=(id("min-selected")) { "Fewest ticked " span class="muted" { "(optional)" } }
            input id=(id("min-selected")) name="min_selected" type="number" min="0" step="1" value=(count(field.and_then(|f| f.min_selected)));
            label for=(id("max-selected")) { "Most ticked " span class="muted" { "(optional)" } }
            input id=(id("max-selected")) name="max_selected" type="number" min="1" step="1" value=(count(field.and_then(|f| f.max_selected)));
        }
        @match kind.bounds {
            Bounds::None => {}
            Bounds::Number | Bounds::Date => {
                @let kind = if kind.bounds == Bounds::Date { "date" } else { "number" };
                label for=(id("min")) { "Smallest " (kind) " " span class="muted" { "(optional)" } }
                input id=(id("min")) name="min" type=(kind) step=[(kind == "number").then_some("any")] value=(min);
                label for=(id("max")) { "Largest " (kind) " " span class="muted" { "(optional)" } }
                input id=(id("max")) name="max" type=(kind) step=[(kind == "number").then_some("any")] value=(max);
            }
            Bounds::Stars => {
                label for=(id("max")) { "Number of stars " span class="muted" { "(1 to 10; empty: 5)" } }
                input id=(id("max")) name="max" type="number" min="1" max="10" step="1" value=(max);
            }
            Bounds::Scale => {
                label for=(id("min")) { "From " span class="muted" { "(empty: 0)" } }
                input id=(id("min")) name="min" type="number" step="1" value=(min);
                label for=(id("max")) { "To " span class="muted" { "(empty: 10)" } }
                input id=(id("max")) name="max" type="number" step="1" value=(max);
                label for=(id("min-label")) { "Label of the low end " span class="muted" { "(optional)" } }
                input id=(id("min-label")) name="min_label" type="text" maxlength="100" value=(field.and_then(|f| f.min_label.as_deref()).unwrap_or(""));
                label for=(id("max-label")) { "Label of the high end " span class="muted" { "(optional)" } }
                input id=(id("max-label")) name="max_label" type="text" maxlength="100" value=(field.and_then(|f| f.max_label.as_deref()).unwrap_or(""));
            }
        }
    }
}
