//! A form's page (`/app/forms/{id}`): its builder (details, fields: add, edit, reorder,
//! remove), its settings, its lifecycle (publish, close and reopen, archive, back to
//! draft, delete with a typed confirmation), a preview of the hosted page and, once
//! published, the share panel. Every change is a plain form post that sends the core
//! one `UpdateForm` (the whole field list for field changes, with the ids of the fields
//! kept so that their answers stay attached), then back to the page (post-redirect-get).
//! The rules (what a valid field or setting is, which status may follow which) are the
//! core's: its validation errors come back on the page, with what to fix (422).
//! Pages and conditions: a `page_break` field starts a page (its label is the title, drawn
//! as a divider in the field list); each field's "Show this field only if" editor is
//! `conditions.rs`, saved the same way.

use super::conditions;
use super::layout::{self, Section, csrf, status_badge, when};
use super::owner::{Owner, Posted, see_other};
use super::share;
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, NaiveDateTime, Utc};
use forms::pb::{self, ErrorReason, convert};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};

/// How a kind of field is offered in the builder and drawn in the preview.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Draw {
    /// A one-line input of this HTML type.
    Line(&'static str),
    /// A multi-line text box.
    Area,
    /// A file picker.
    File,
    /// One input of this HTML type (radio or checkbox) per option, in a fieldset.
    Choice(&'static str),
    /// A select of the options.
    Select,
    /// Radio buttons over the field's range (rating, scale).
    Range,
    /// One consent checkbox.
    Tick,
    /// Not shown to visitors.
    Hidden,
    /// Not a question: starts a page, titled by its label.
    Page,
}

/// Which bounds (`min`/`max`) a kind takes, and how the builder asks for them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bounds {
    None,
    /// Numbers, both optional.
    Number,
    /// Dates (`YYYY-MM-DD`), both optional.
    Date,
    /// The number of stars only (`max`, 1 to 10).
    Stars,
    /// Whole numbers with end labels (0 to 10 by default).
    Scale,
}

/// A kind of field the core knows (`FormField.type`). Adding a kind to the core means
/// adding a row here; nothing else of the builder names kinds.
struct Kind {
    /// The core's name of the kind.
    name: &'static str,
    /// What an owner reads in the builder.
    label: &'static str,
    /// Whether it takes the file options (allowed_types, max_size_mb).
    file: bool,
    draw: Draw,
    /// Whether it takes options (and "other").
    options: bool,
    /// Whether it takes min/max_selected.
    multiple: bool,
    bounds: Bounds,
}

/// Every kind of field the core knows today, in the order the builder offers them.
const KINDS: &[Kind] = &[
    Kind {
        name: "short_text",
        label: "Short text",
        file: false,
        draw: Draw::Line("text"),
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "long_text",
        label: "Long text",
        file: false,
        draw: Draw::Area,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "textarea",
        label: "Text area",
        file: false,
        draw: Draw::Area,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "email",
        label: "Email address",
        file: false,
        draw: Draw::Line("email"),
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "number",
        label: "Number",
        file: false,
        draw: Draw::Line("number"),
        options: false,
        multiple: false,
        bounds: Bounds::Number,
    },
    Kind {
        name: "file_upload",
        label: "File upload",
        file: true,
        draw: Draw::File,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "single_choice",
        label: "Single choice (radio buttons)",
        file: false,
        draw: Draw::Choice("radio"),
        options: true,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "dropdown",
        label: "Dropdown",
        file: false,
        draw: Draw::Select,
        options: true,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "multiple_choice",
        label: "Multiple choice (checkboxes)",
        file: false,
        draw: Draw::Choice("checkbox"),
        options: true,
        multiple: true,
        bounds: Bounds::None,
    },
    Kind {
        name: "rating",
        label: "Rating (stars)",
        file: false,
        draw: Draw::Range,
        options: false,
        multiple: false,
        bounds: Bounds::Stars,
    },
    Kind {
        name: "scale",
        label: "Scale (opinion, NPS)",
        file: false,
        draw: Draw::Range,
        options: false,
        multiple: false,
        bounds: Bounds::Scale,
    },
    Kind {
        name: "date",
        label: "Date",
        file: false,
        draw: Draw::Line("date"),
        options: false,
        multiple: false,
        bounds: Bounds::Date,
    },
    Kind {
        name: "url",
        label: "Web address (URL)",
        file: false,
        draw: Draw::Line("url"),
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "phone",
        label: "Phone number",
        file: false,
        draw: Draw::Line("tel"),
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "checkbox",
        label: "Checkbox (consent)",
        file: false,
        draw: Draw::Tick,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "hidden",
        label: "Hidden (from the page's URL query)",
        file: false,
        draw: Draw::Hidden,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
    Kind {
        name: "page_break",
        label: "Page break (starts a new page; the label is the page's title)",
        file: false,
        draw: Draw::Page,
        options: false,
        multiple: false,
        bounds: Bounds::None,
    },
];

const PAGE_BREAK: &str = "page_break";

/// The page of each field (1-based), as the core counts them: a break starts the next
/// page, except as the first field, where it titles page 1.
fn pages(fields: &[pb::FormField]) -> Vec<usize> {
    let mut page = 1;
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.r#type == PAGE_BREAK && i > 0 {
                page += 1;
            }
            page
        })
        .collect()
}

fn kind_of(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

fn kind_label(name: &str) -> &str {
    kind_of(name).map_or(name, |k| k.label)
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "created" => "The form was created. Add its fields below.",
        "saved" => "The title and description were saved.",
        "field-added" => "The field was added.",
        "field-saved" => "The field was saved.",
        "field-moved" => "The field was moved.",
        "field-removed" => "The field was removed.",
        "conditions-saved" => "The conditions were saved.",
        "settings" => "The settings were saved.",
        "published" => "The form is published: it accepts responses.",
        "closed" => "The form is closed: it no longer accepts responses.",
        "reopened" => "The form is open again.",
        "archived" => "The form is archived.",
        "drafted" => "The form is back to draft: it no longer accepts responses.",
        _ => return None,
    })
}

/// Core messages in the builder's words: `fields[2].label` is "Field 3: label",
/// `settings.max_responses` is "Response cap".
fn humane(message: &str) -> String {
    let mut text = message.to_owned();
    for (key, name) in [
        ("settings.confirmation_message", "Confirmation message"),
        ("settings.redirect_url", "Redirect URL"),
        ("settings.notifications_enabled", "Notifications"),
        ("settings.proof_of_work", "Proof-of-work check"),
        ("settings.closes_at", "Closing date"),
        ("settings.max_responses", "Response cap"),
        ("settings.allowed_origins", "Allowed origins"),
    ] {
        text = text.replace(key, name);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("fields[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "fields[".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match (
            after[..digits].parse::<usize>(),
            after[digits..].strip_prefix(']'),
        ) {
            (Ok(i), Some(tail)) => {
                out.push_str(&format!("Field {}", i + 1));
                rest = match tail.strip_prefix('.') {
                    Some(tail) => {
                        out.push_str(": ");
                        tail
                    }
                    None => tail,
                };
            }
            _ => {
                out.push_str("fields[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    conditions_humane(&out)
}

/// `show_if[1].value` is "condition 2: value"; `show_if:` is "conditions:".
fn conditions_humane(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("show_if") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "show_if".len()..];
        let index = after.strip_prefix('[').and_then(|tail| {
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            let n = tail[..digits].parse::<usize>().ok()?;
            tail[digits..].strip_prefix(']').map(|tail| (n, tail))
        });
        match index {
            Some((n, tail)) => {
                out.push_str(&format!("condition {}", n + 1));
                rest = match tail.strip_prefix('.') {
                    Some(tail) => {
                        out.push_str(": ");
                        tail
                    }
                    None => tail,
                };
            }
            None => {
                out.push_str("conditions");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[derive(Deserialize, Default)]
pub(crate) struct PageQuery {
    done: Option<String>,
}

/// A form id from the path: a UUID, else there is no such page.
fn form_id(id: &str) -> Option<String> {
    uuid::Uuid::parse_str(id).ok().map(|u| u.to_string())
}

fn not_found(owner: &Owner) -> Response {
    let body = html! {
        h1 { "Not found" }
        p class="error" role="alert" { "There is nothing here, or it belongs to another account." }
        p { a href="/app/forms" { "Back to your forms" } }
    };
    let mut response = owner.page("Not found", Section::Forms, body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// The form, read in the owner's name (another account's form is not found).
async fn load(owner: &Owner, id: &str) -> Result<pb::Form, Response> {
    let Some(id) = form_id(id) else {
        return Err(not_found(owner));
    };
    let read = owner
        .state
        .forms()
        .get_form(owner.request(pb::GetFormRequest { id }))
        .await;
    match read.map(|r| r.into_inner().form) {
        Ok(Some(form)) => Ok(form),
        Ok(None) => Err(not_found(owner)),
        Err(status) => Err(owner.failure(&status)),
    }
}

/// Sends `form`'s values for `paths` to the core.
async fn update(
    owner: &Owner,
    csrf: &str,
    form: pb::Form,
    paths: &[&str],
) -> Result<(), tonic::Status> {
    let request = pb::UpdateFormRequest {
        id: form.id.clone(),
        form: Some(form),
        update_mask: Some(prost_types::FieldMask {
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
        }),
    };
    owner
        .state
        .forms()
        .update_form(owner.change(request, csrf))
        .await
        .map(|_| ())
}

/// The page again, with a problem to fix (422) and nothing changed.
async fn refused(owner: &Owner, id: &str, origin: &Origin, problem: &str) -> Response {
    match load(owner, id).await {
        Ok(form) => {
            let text = format!("Nothing was saved. {problem}");
            let mut response = owner.page(
                &form.title,
                Section::Forms,
                render(owner, &form, origin, None, Some(&text)),
            );
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
        Err(response) => response,
    }
}

/// After a change: on to the page with its notice, or the page with the core's reason
/// when it refused the values.
async fn after(
    owner: &Owner,
    id: &str,
    origin: &Origin,
    result: Result<(), tonic::Status>,
    done: &str,
    anchor: &str,
) -> Response {
    match result {
        Ok(()) => see_other(&format!("/app/forms/{id}?done={done}#{anchor}")),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            refused(owner, id, origin, &humane(status.message())).await
        }
        Err(status) => owner.failure(&status),
    }
}

/// `GET /app/forms/{id}`
pub(crate) async fn page(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    match load(&owner, &id).await {
        Ok(form) => owner.page(
            &form.title,
            Section::Forms,
            render(&owner, &form, &origin, done_text(q.done.as_deref()), None),
        ),
        Err(response) => response,
    }
}

/// The moment the form stops taking responses by its settings, if it is set.
fn closes_at(form: &pb::Form) -> Option<DateTime<Utc>> {
    let settings = settings_of(form);
    settings
        .get("closes_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|at| at.with_timezone(&Utc))
}

fn settings_of(form: &pb::Form) -> Map<String, Value> {
    form.settings
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default()
}

fn is_published(form: &pb::Form) -> bool {
    form.status == i32::from(pb::FormStatus::Published)
}

fn render(
    owner: &Owner,
    form: &pb::Form,
    origin: &Origin,
    notice: Option<&str>,
    problem: Option<&str>,
) -> Markup {
    let base = format!("/app/forms/{}", form.id);
    let closed = closes_at(form).is_some_and(|at| at <= Utc::now());
    html! {
        p class="crumbs" { a href="/app/forms" { "Forms" } }
        h1 { (form.title) }
        p class="form-status" {
            (status_badge(form.status))
            @if is_published(form) && closed { " " span class="badge closed" { "closed" } }
            span class="muted" { " Updated " (when(form.updated_at.as_ref())) }
        }
        @if let Some(description) = &form.description { p class="description" { (description) } }
        nav class="subnav" aria-label="Form" {
            a href=(base) aria-current="page" { "Builder" }
            a href={(base) "/responses"} { "Responses" }
            a href={(base) "/summary"} { "Summary" }
            a href={(base) "/webhooks"} { "Webhooks" }
        }
        (layout::notice(notice))
        (layout::problem(problem))
        div class="builder" {
            div class="builder-main" {
                (details_section(owner, form, &base))
                (fields_section(owner, form, &base))
                (add_section(owner, &base))
                (settings_section(owner, form, &base))
                (lifecycle_section(owner, form, &base, closed))
            }
            div class="builder-side" {
                @if is_published(form) { (share_section(form, origin)) }
                (preview_section(form))
            }
        }
    }
}

fn details_section(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    html! {
        section class="card" aria-labelledby="details-h" id="details" {
            h2 id="details-h" { "Title and description" }
            form method="post" action={(base) "/details"} {
                (csrf(&owner.session))
                label for="d-title" { "Title" }
                input id="d-title" name="title" type="text" required maxlength="200" value=(form.title);
                label for="d-description" { "Description " span class="muted" { "(optional)" } }
                textarea id="d-description" name="description" maxlength="5000" {
                    (form.description.as_deref().unwrap_or(""))
                }
                div class="actions" { button type="submit" { "Save title and description" } }
            }
        }
    }
}

fn fields_section(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    let last = form.fields.len().saturating_sub(1);
    let page_of = pages(&form.fields);
    let paged = form.fields.iter().any(|f| f.r#type == PAGE_BREAK);
    html! {
        section class="card" aria-labelledby="fields-h" id="fields" {
            h2 id="fields-h" { "Fields" }
            @if form.fields.is_empty() {
                p class="muted" { "No field yet. Add the first one below." }
            } @else {
                // Page 1 has no break of its own unless the form starts with one.
                @if paged && form.fields.first().is_some_and(|f| f.r#type != PAGE_BREAK) {
                    p class="page-divider" { "Page 1" }
                }
                ol class="field-list" {
                    @for (i, field) in form.fields.iter().enumerate() {
                        @let fid = &field.id;
                        @let at = format!("{base}/fields/{fid}");
                        @let file = kind_of(&field.r#type).is_some_and(|k| k.file);
                        @let page = field.r#type == PAGE_BREAK;
                        @let page_no = page_of.get(i).copied().unwrap_or(1);
                        li id={"field-" (fid)} class=[page.then_some("page-break")] {
                            @if page {
                                h3 class="page-divider" {
                                    "Page " (page_no) ": " (field.label)
                                    " " span class="muted kind" { "(field " (i + 1) ", page break)" }
                                }
                            } @else {
                                h3 {
                                    (i + 1) ". " (field.label)
                                    " " span class="muted kind" { "(" (kind_label(&field.r#type)) @if field.required { ", required" } ")" }
                                }
                            }
                            @if field.r#ref.is_some() || !field.show_if.is_empty() {
                                p class="field-logic" {
                                    @if let Some(r) = &field.r#ref { span class="muted" { "Reference: " code { (r) } } " " }
                                    @if !field.show_if.is_empty() {
                                        span class="condition" {
                                            @if page { "This page is shown only if " } @else { "Shown only if " }
                                            (conditions::in_words(&field.show_if, &form.fields))
                                            "."
                                        }
                                    }
                                }
                            }
                            form method="post" action=(at) {
                                (csrf(&owner.session))
                                fieldset {
                                    legend { "Edit field " (i + 1) }
                                    label for={"f-" (fid) "-label"} { @if page { "Page title" } @else { "Label" } }
                                    input id={"f-" (fid) "-label"} name="label" type="text" required maxlength="500" value=(field.label);
                                    @if !page {
                                        label for={"f-" (fid) "-placeholder"} { "Placeholder " span class="muted" { "(optional)" } }
                                        input id={"f-" (fid) "-placeholder"} name="placeholder" type="text" maxlength="500" value=(field.placeholder.as_deref().unwrap_or(""));
                                    }
                                    @if file {
                                        label for={"f-" (fid) "-types"} { "Allowed file types " span class="muted" { "(extensions, comma-separated, e.g. pdf, png; empty: any)" } }
                                        input id={"f-" (fid) "-types"} name="allowed_types" type="text" value=(field.allowed_types.join(", "));
                                        label for={"f-" (fid) "-size"} { "Largest file, in MB " span class="muted" { "(up to 100; empty: the service's limit)" } }
                                        input id={"f-" (fid) "-size"} name="max_size_mb" type="number" min="0" max="100" step="any" value=(field.max_size_mb.map(|m| m.to_string()).unwrap_or_default());
                                    }
                                    @if let Some(kind) = kind_of(&field.r#type) {
                                        (properties(&format!("f-{fid}"), kind, Some(field)))
                                    }
                                    (ref_input(&format!("f-{fid}"), field.r#ref.as_deref()))
                                    @if !page {
                                        label class="inline" {
                                            input type="checkbox" name="required" value="on" checked[field.required];
                                            "Required"
                                        }
                                    }
                                }
                                div class="actions" {
                                    button type="submit" { "Save field " span class="visually-hidden" { (i + 1) } }
                                }
                            }
                            (conditions::editor(csrf(&owner.session), &format!("{at}/conditions"), &form.fields, i))
                            div class="actions field-actions" {
                                @if i > 0 {
                                    form method="post" action={(at) "/move"} {
                                        (csrf(&owner.session))
                                        input type="hidden" name="direction" value="up";
                                        button type="submit" class="secondary" { "Move up " span class="visually-hidden" { "field " (i + 1) } }
                                    }
                                }
                                @if i < last {
                                    form method="post" action={(at) "/move"} {
                                        (csrf(&owner.session))
                                        input type="hidden" name="direction" value="down";
                                        button type="submit" class="secondary" { "Move down " span class="visually-hidden" { "field " (i + 1) } }
                                    }
                                }
                                form method="post" action={(at) "/remove"} {
                                    (csrf(&owner.session))
                                    button type="submit" class="danger" { "Remove " span class="visually-hidden" { "field " (i + 1) } }
                                }
                            }
                        }
                    }
                }
                p class="muted" { "Removing a field hides its answers from the responses that have one. A field that conditions read cannot be removed, or moved below them, until those conditions go." }
            }
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
        input id={(prefix) "-ref"} name="ref" type="text" maxlength="64" pattern="[A-Za-z0-9_-]{1,64}" value=(value.unwrap_or(""));
    }
}

/// Whether a kind of choice offers "Other" (the core's rule: a dropdown does not).
fn takes_other(kind: &str) -> bool {
    kind != "dropdown"
}

/// A bound of a field as the text of its input (`""`: none).
fn bound_text(value: Option<&prost_types::Value>) -> String {
    match value.map(convert::value_to_json) {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
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
        @if kind.options {
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
            @if field.is_none_or(|f| takes_other(&f.r#type)) {
                label class="inline" {
                    input type="checkbox" name="allow_other" value="on" checked[field.is_some_and(|f| f.allow_other)];
                    "Offer “Other”, with free text"
                    @if field.is_none() { " " span class="muted" { "(not for a dropdown)" } }
                }
            }
        }
        @if kind.multiple {
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

/// The property editors of the "Add a field" form, for the kinds that take them; each
/// group names its kinds, and is ignored for the others. Bounds are text here, read by
/// the kind chosen (a number, or a date for a date field).
fn new_properties() -> Markup {
    html! {
        @if let Some(kind) = kind_of("multiple_choice") {
            fieldset {
                legend { "Single choice, dropdown and multiple choice only" }
                (properties("new", kind, None))
            }
        }
        fieldset {
            legend { "Rating, scale, date and number only" }
            label for="new-min" { "Smallest value " span class="muted" { "(scale: from, 0 by default; date: YYYY-MM-DD; optional)" } }
            input id="new-min" name="min" type="text" maxlength="40";
            label for="new-max" { "Largest value " span class="muted" { "(rating: stars, 5 by default; scale: to, 10 by default; optional)" } }
            input id="new-max" name="max" type="text" maxlength="40";
            label for="new-min-label" { "Scale: label of the low end " span class="muted" { "(optional)" } }
            input id="new-min-label" name="min_label" type="text" maxlength="100";
            label for="new-max-label" { "Scale: label of the high end " span class="muted" { "(optional)" } }
            input id="new-max-label" name="max_label" type="text" maxlength="100";
        }
    }
}

fn add_section(owner: &Owner, base: &str) -> Markup {
    html! {
        section class="card" aria-labelledby="add-h" id="add" {
            h2 id="add-h" { "Add a field" }
            form method="post" action={(base) "/fields"} {
                (csrf(&owner.session))
                label for="new-kind" { "Kind" }
                select id="new-kind" name="kind" {
                    @for kind in KINDS { option value=(kind.name) { (kind.label) } }
                }
                label for="new-label" { "Label" }
                input id="new-label" name="label" type="text" required maxlength="500";
                label for="new-placeholder" { "Placeholder " span class="muted" { "(optional; not for a page break)" } }
                input id="new-placeholder" name="placeholder" type="text" maxlength="500";
                fieldset {
                    legend { "File upload only" }
                    label for="new-types" { "Allowed file types " span class="muted" { "(extensions, comma-separated, e.g. pdf, png; empty: any)" } }
                    input id="new-types" name="allowed_types" type="text";
                    label for="new-size" { "Largest file, in MB " span class="muted" { "(up to 100; empty: the service's limit)" } }
                    input id="new-size" name="max_size_mb" type="number" min="0" max="100" step="any";
                }
                (new_properties())
                (ref_input("new", None))
                label class="inline" {
                    input type="checkbox" name="required" value="on";
                    "Required"
                }
                div class="actions" { button type="submit" { "Add field" } }
            }
        }
    }
}

fn settings_section(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    let settings = settings_of(form);
    let text = |key: &str| {
        settings
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let closes = closes_at(form)
        .map(|at| at.format("%Y-%m-%dT%H:%M").to_string())
        .unwrap_or_default();
    let cap = settings
        .get("max_responses")
        .and_then(Value::as_u64)
        .map(|n| n.to_string())
        .unwrap_or_default();
    let notify = settings.get("notifications_enabled") == Some(&Value::Bool(true));
    let pow = settings.get("proof_of_work") == Some(&Value::Bool(true));
    let origins = settings
        .get("allowed_origins")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    html! {
        section class="card" aria-labelledby="settings-h" id="settings" {
            h2 id="settings-h" { "Settings" }
            form method="post" action={(base) "/settings"} {
                (csrf(&owner.session))
                p class="muted" id="settings-hint" { "Leave a box empty to clear that setting." }
                label for="s-confirmation" { "Confirmation message" }
                textarea id="s-confirmation" name="confirmation_message" maxlength="5000" aria-describedby="settings-hint" { (text("confirmation_message")) }
                label for="s-redirect" { "Redirect after submitting " span class="muted" { "(an http or https URL; replaces the message)" } }
                input id="s-redirect" name="redirect_url" type="url" maxlength="2048" value=(text("redirect_url"));
                fieldset {
                    legend { "Notifications" }
                    label class="inline" {
                        input type="checkbox" name="notifications_enabled" value="on" checked[notify];
                        "Email me each new response"
                    }
                }
                fieldset {
                    legend { "Robots" }
                    label class="inline" {
                        input type="checkbox" name="proof_of_work" value="on" aria-describedby="s-pow-hint" checked[pow];
                        "Require a proof-of-work check (stops robots without a third party)"
                    }
                    p class="muted" id="s-pow-hint" {
                        "The visitor's browser solves a small puzzle while they type (well under a second); the form page then needs JavaScript to be sent."
                    }
                }
                label for="s-closes" { "Closing date and time, in UTC " span class="muted" { "(no response is accepted from then on)" } }
                input id="s-closes" name="closes_at" type="datetime-local" value=(closes);
                label for="s-cap" { "Response cap " span class="muted" { "(the form closes when it holds this many responses)" } }
                input id="s-cap" name="max_responses" type="number" min="1" step="1" inputmode="numeric" value=(cap);
                label for="s-origins" { "Allowed origins (one per line) " span class="muted" { "— accept posts from your own site's HTML form, e.g. https://www.example.com" } }
                textarea id="s-origins" name="allowed_origins" rows="3" spellcheck="false" autocapitalize="off" { (origins) }
                div class="actions" { button type="submit" { "Save settings" } }
            }
        }
    }
}

fn lifecycle_section(owner: &Owner, form: &pb::Form, base: &str, closed: bool) -> Markup {
    let status = pb::FormStatus::try_from(form.status).unwrap_or(pb::FormStatus::Unspecified);
    let action = |value: &str, label: &str, class: &str| {
        html! {
            form method="post" action={(base) "/status"} {
                (csrf(&owner.session))
                input type="hidden" name="action" value=(value);
                button type="submit" class=(class) { (label) }
            }
        }
    };
    html! {
        section class="card" aria-labelledby="lifecycle-h" id="lifecycle" {
            h2 id="lifecycle-h" { "Status" }
            p {
                @match status {
                    pb::FormStatus::Published if closed => { "Published, but closed: it does not accept responses." }
                    pb::FormStatus::Published => { "Published: it accepts responses." }
                    pb::FormStatus::Archived => { "Archived: it does not accept responses; its data is kept." }
                    _ => { "Draft: only you can see it." }
                }
            }
            div class="actions" {
                @if status != pb::FormStatus::Published { (action("publish", "Publish", "")) }
                @if status == pb::FormStatus::Published {
                    @if closed { (action("reopen", "Reopen", "")) } @else { (action("close", "Close now", "secondary")) }
                }
                @if status != pb::FormStatus::Archived { (action("archive", "Archive", "secondary")) }
                @if status != pb::FormStatus::Draft { (action("draft", "Back to draft", "secondary")) }
            }
            h3 { "Delete" }
            form method="post" action={(base) "/delete"} {
                (csrf(&owner.session))
                label for="delete-confirm" {
                    "To delete this form and all its responses for good, type its title: "
                    span class="expected" { (form.title) }
                }
                input id="delete-confirm" name="confirm_title" type="text" required autocomplete="off" spellcheck="false"
                    data-confirm-input="delete-button" data-expected=(form.title);
                div class="actions" { button id="delete-button" type="submit" class="danger" { "Delete this form" } }
            }
        }
    }
}

fn share_section(form: &pb::Form, origin: &Origin) -> Markup {
    let url = origin.hosted_url(&form.short_id);
    let snippet = share::embed_snippet(&url, &form.title);
    // Endpoint mode is on while the form lists an origin.
    let endpoint = settings_of(form)
        .get("allowed_origins")
        .and_then(Value::as_array)
        .is_some_and(|list| !list.is_empty());
    let endpoint_html = endpoint.then(|| share::endpoint_snippet(&url, form));
    html! {
        section class="card share" aria-labelledby="share-h" id="share" {
            h2 id="share-h" { "Share" }
            label for="share-link" { "Link to the form" }
            div class="copy-row" {
                input id="share-link" type="text" readonly value=(url);
                button type="button" class="secondary" data-copy="share-link" { "Copy link" }
            }
            p id="share-link-copied" class="muted" role="status" {}
            p { a href=(url) target="_blank" rel="noopener" { "Open the form" span class="visually-hidden" { " (in a new tab)" } } }
            label for="embed-code" { "Embed it in a web page" }
            textarea id="embed-code" class="code" readonly rows="3" { (snippet) }
            div class="actions" { button type="button" class="secondary" data-copy="embed-code" { "Copy embed code" } }
            p id="embed-code-copied" class="muted" role="status" {}
            @if let Some(snippet) = endpoint_html {
                label for="endpoint-code" { "Or keep your own HTML form: post it here" }
                p class="muted" id="endpoint-hint" { "Your site's origins are listed in the settings (allowed origins). Copy this form into your page and style it as you like; keep the names and the hidden input." }
                textarea id="endpoint-code" class="code" readonly rows="12" aria-describedby="endpoint-hint" { (snippet) }
                div class="actions" { button type="button" class="secondary" data-copy="endpoint-code" { "Copy form HTML" } }
                p id="endpoint-code-copied" class="muted" role="status" {}
            }
            @if origin.0.is_some() {
                @if let Some(qr) = share::qr_svg(&url, &format!("QR code of the link to {}", form.title)) {
                    figure class="qr-figure" {
                        (qr)
                        figcaption class="muted" { "Scan to open the form on a phone." }
                    }
                }
            } @else {
                p class="muted" { "The QR code needs the service's address, which this request did not carry." }
            }
        }
    }
}

/// The choices the preview draws for a choice, rating or scale field: (value, label).
fn preview_choices(field: &pb::FormField) -> Vec<(String, String)> {
    let int = |v: Option<&prost_types::Value>| bound_text(v).parse::<i64>().ok();
    let (low, high) = match field.r#type.as_str() {
        "rating" => (1, int(field.max.as_ref()).unwrap_or(5)),
        "scale" => (
            int(field.min.as_ref()).unwrap_or(0),
            int(field.max.as_ref()).unwrap_or(10),
        ),
        _ => {
            return field
                .options
                .iter()
                .map(|o| (o.id.clone(), o.label.clone()))
                .collect();
        }
    };
    let high = high.clamp(low, low.saturating_add(100));
    (low..=high)
        .map(|n| {
            let end = match n {
                n if n == low => field.min_label.as_deref(),
                n if n == high => field.max_label.as_deref(),
                _ => None,
            };
            let label = match (field.r#type.as_str(), end) {
                ("rating", _) => format!("{n} star{}", if n == 1 { "" } else { "s" }),
                (_, Some(end)) if !end.is_empty() => format!("{n} ({end})"),
                _ => n.to_string(),
            };
            (n.to_string(), label)
        })
        .collect()
}

fn preview_section(form: &pb::Form) -> Markup {
    html! {
        section class="card" aria-labelledby="preview-h" id="preview" {
            h2 id="preview-h" { "Preview" }
            @if is_published(form) {
                iframe class="preview" src={"/f/" (form.short_id)} title={"Preview of the hosted form " (form.title)} loading="lazy" {}
            } @else {
                p class="muted" { "This is a preview: the form is not published, so no one can open or answer it yet." }
                div class="static-preview" {
                    p class="preview-title" { (form.title) }
                    @if let Some(d) = &form.description { p { (d) } }
                    fieldset disabled {
                        legend { "Preview of the fields (read-only)" }
                        @if form.fields.is_empty() { p class="muted" { "No field yet." } }
                        @for field in &form.fields {
                            @let id = format!("pv-{}", field.id);
                            @let draw = kind_of(&field.r#type).map_or(Draw::Line("text"), |k| k.draw);
                            @let placeholder = field.placeholder.as_deref().unwrap_or("");
                            @let required = html! { @if field.required { " " span aria-hidden="true" { "*" } span class="visually-hidden" { "(required)" } } };
                            @match draw {
                                Draw::Choice(_) | Draw::Range => {
                                    @let input = if let Draw::Choice(input) = draw { input } else { "radio" };
                                    fieldset {
                                        legend { (field.label) (required) }
                                        @for (n, (_, label)) in preview_choices(field).iter().enumerate() {
                                            label class="inline" {
                                                input id={(id) "-" (n)} type=(input) name=(id);
                                                (label)
                                            }
                                        }
                                        @if field.allow_other && draw != Draw::Range {
                                            label class="inline" { input type=(input) name=(id); "Other" }
                                        }
                                    }
                                }
                                Draw::Select => {
                                    label for=(id) { (field.label) (required) }
                                    select id=(id) {
                                        option value="" { "Choose…" }
                                        @for option in &field.options { option { (option.label) } }
                                        @if field.allow_other { option { "Other" } }
                                    }
                                }
                                Draw::Tick => {
                                    label class="inline" { input id=(id) type="checkbox"; (field.label) (required) }
                                }
                                Draw::Hidden => {
                                    p class="muted" { (field.label) ": hidden, filled from the page's URL query" }
                                }
                                Draw::Page => {
                                    p class="preview-page" { "Next page: " (field.label) }
                                }
                                Draw::Area => { label for=(id) { (field.label) (required) } textarea id=(id) placeholder=(placeholder) {} }
                                Draw::File => { label for=(id) { (field.label) (required) } input id=(id) type="file"; }
                                Draw::Line(kind) => { label for=(id) { (field.label) (required) } input id=(id) type=(kind) placeholder=(placeholder); }
                            }
                        }
                    }
                }
            }
        }
    }
}

// --------------------------------------------------------------------------------------
// Changes
// --------------------------------------------------------------------------------------

#[derive(Deserialize)]
pub(crate) struct Details {
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
}

/// `POST /app/forms/{id}/details`: title and description (empty clears it).
pub(crate) async fn details(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Details>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return not_found(&owner);
    };
    let description = posted.description.trim();
    let form = pb::Form {
        id: id.clone(),
        title: posted.title.trim().to_owned(),
        description: (!description.is_empty()).then(|| description.to_owned()),
        ..Default::default()
    };
    let result = update(&owner, &csrf, form, &["title", "description"]).await;
    after(&owner, &id, &origin, result, "saved", "details").await
}

#[derive(Deserialize)]
pub(crate) struct FieldForm {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    label: String,
    required: Option<String>,
    #[serde(default)]
    placeholder: String,
    #[serde(default)]
    allowed_types: String,
    #[serde(default)]
    max_size_mb: String,
    /// Ids of the existing options, in order, beside `option_label`.
    #[serde(default)]
    option_id: Vec<String>,
    /// Labels of the existing options (empty: removed).
    #[serde(default)]
    option_label: Vec<String>,
    /// New options, one per line.
    #[serde(default)]
    options: String,
    allow_other: Option<String>,
    #[serde(default)]
    min_selected: String,
    #[serde(default)]
    max_selected: String,
    #[serde(default)]
    min: String,
    #[serde(default)]
    max: String,
    #[serde(default)]
    min_label: String,
    #[serde(default)]
    max_label: String,
    /// The owner's name for the field (empty: none).
    #[serde(rename = "ref", default)]
    reference: String,
}

/// A count box: empty is none.
fn count_of(text: &str, problem: &'static str) -> Result<Option<i32>, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| problem)
}

/// A bound box read for `bounds`: empty is none; a date is sent as written, for the
/// core to check.
fn bound_of(text: &str, bounds: Bounds) -> Result<Option<prost_types::Value>, &'static str> {
    let text = text.trim();
    if text.is_empty() || bounds == Bounds::None {
        return Ok(None);
    }
    let json = match bounds {
        Bounds::Date => Value::String(text.to_owned()),
        Bounds::Number => text
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(convert::number_to_json)
            .ok_or("Smallest and largest value: write numbers, such as 0 or 2.5.")?,
        _ => Value::from(
            text.parse::<i64>()
                .map_err(|_| "Stars and scale ends: write whole numbers, such as 1 or 10.")?,
        ),
    };
    Ok(Some(convert::json_to_value(&json)))
}

/// Applies the kind's own properties (see `properties`) to `field`; those of other
/// kinds are cleared.
fn apply_properties(field: &mut pb::FormField, posted: &FieldForm) -> Result<(), &'static str> {
    let kind = kind_of(&field.r#type);
    let takes_options = kind.is_some_and(|k| k.options);
    let mut options = Vec::new();
    if takes_options {
        for (id, label) in posted.option_id.iter().zip(&posted.option_label) {
            let label = label.trim();
            if !label.is_empty() {
                options.push(pb::FieldOption {
                    id: id.clone(),
                    label: label.to_owned(),
                });
            }
        }
        options.extend(
            posted
                .options
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|label| pb::FieldOption {
                    id: String::new(),
                    label: label.to_owned(),
                }),
        );
    }
    field.options = options;
    field.allow_other = takes_options && takes_other(&field.r#type) && posted.allow_other.is_some();
    let multiple = kind.is_some_and(|k| k.multiple);
    let problem = "Fewest and most ticked: write whole numbers, such as 1 or 3.";
    field.min_selected = if multiple {
        count_of(&posted.min_selected, problem)?
    } else {
        None
    };
    field.max_selected = if multiple {
        count_of(&posted.max_selected, problem)?
    } else {
        None
    };
    let bounds = kind.map_or(Bounds::None, |k| k.bounds);
    field.min = if bounds == Bounds::Stars {
        None
    } else {
        bound_of(&posted.min, bounds)?
    };
    field.max = bound_of(&posted.max, bounds)?;
    let end = |text: &str| {
        let text = text.trim();
        (bounds == Bounds::Scale && !text.is_empty()).then(|| text.to_owned())
    };
    field.min_label = end(&posted.min_label);
    field.max_label = end(&posted.max_label);
    Ok(())
}

/// Applies a posted field to `field` (kind as it is): label, required, placeholder and,
/// for file kinds, the file options. A size that is not a number is a problem to fix.
fn apply_field(field: &mut pb::FormField, posted: FieldForm) -> Result<(), &'static str> {
    let placeholder = posted.placeholder.trim();
    let reference = posted.reference.trim();
    // A page break is not a question: its form has no placeholder or required box, and
    // the add form's are ignored for it.
    let question = field.r#type != PAGE_BREAK;
    field.label = posted.label.trim().to_owned();
    field.required = question && posted.required.is_some();
    field.placeholder = (question && !placeholder.is_empty()).then(|| placeholder.to_owned());
    field.r#ref = (!reference.is_empty()).then(|| reference.to_owned());
    if kind_of(&field.r#type).is_some_and(|k| k.file) {
        field.allowed_types = posted
            .allowed_types
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let size = posted.max_size_mb.trim();
        field.max_size_mb = if size.is_empty() {
            None
        } else {
            Some(
                size.parse::<f64>()
                    .map_err(|_| "Largest file: write a number of megabytes, such as 10 or 2.5.")?,
            )
        };
    } else {
        field.allowed_types.clear();
        field.max_size_mb = None;
    }
    apply_properties(field, &posted)
}

/// Sends the whole field list of `form` (each existing field with its id).
async fn save_fields(
    owner: &Owner,
    origin: &Origin,
    csrf: &str,
    form: pb::Form,
    done: &str,
    anchor: &str,
) -> Response {
    let id = form.id.clone();
    let change = pb::Form {
        id: form.id,
        fields: form.fields,
        ..Default::default()
    };
    let result = update(owner, csrf, change, &["fields"]).await;
    after(owner, &id, origin, result, done, anchor).await
}

/// `POST /app/forms/{id}/fields`: adds a field at the end.
pub(crate) async fn add_field(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<FieldForm>,
) -> Response {
    let mut form = match load(&owner, &id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let mut field = pb::FormField {
        r#type: posted.kind.trim().to_owned(),
        ..Default::default()
    };
    if let Err(problem) = apply_field(&mut field, posted) {
        return refused(&owner, &form.id, &origin, problem).await;
    }
    form.fields.push(field);
    save_fields(&owner, &origin, &csrf, form, "field-added", "fields").await
}

/// The form and the position of one of its fields; 404 for either missing.
async fn load_field(
    owner: &Owner,
    id: &str,
    field_id: &str,
) -> Result<(pb::Form, usize), Response> {
    let form = load(owner, id).await?;
    match form.fields.iter().position(|f| f.id == field_id) {
        Some(at) => Ok((form, at)),
        None => Err(not_found(owner)),
    }
}

/// `POST /app/forms/{id}/fields/{field_id}`: edits a field, keeping its id.
pub(crate) async fn edit_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<FieldForm>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if let Err(problem) = apply_field(&mut form.fields[at], posted) {
        return refused(&owner, &form.id, &origin, problem).await;
    }
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "field-saved",
        &format!("field-{field_id}"),
    )
    .await
}

/// `POST /app/forms/{id}/fields/{field_id}/conditions`: the field's `show_if`, as the
/// conditions editor posts it (numbered rows: see `conditions`).
pub(crate) async fn edit_conditions(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Vec<(String, String)>>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match conditions::parse(&posted, &form.fields) {
        Ok(show_if) => form.fields[at].show_if = show_if,
        Err(problem) => return refused(&owner, &form.id, &origin, &problem).await,
    }
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "conditions-saved",
        &format!("field-{field_id}"),
    )
    .await
}

#[derive(Deserialize)]
pub(crate) struct Move {
    #[serde(default)]
    direction: String,
}

/// `POST /app/forms/{id}/fields/{field_id}/move`: one place up or down.
pub(crate) async fn move_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Move>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let to = match posted.direction.as_str() {
        "up" => at.checked_sub(1),
        "down" => Some(at + 1).filter(|to| *to < form.fields.len()),
        _ => None,
    };
    let Some(to) = to else {
        return refused(
            &owner,
            &form.id,
            &origin,
            "That field cannot move that way.",
        )
        .await;
    };
    form.fields.swap(at, to);
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "field-moved",
        &format!("field-{field_id}"),
    )
    .await
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// `POST /app/forms/{id}/fields/{field_id}/remove`
pub(crate) async fn remove_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    form.fields.remove(at);
    save_fields(&owner, &origin, &csrf, form, "field-removed", "fields").await
}

#[derive(Deserialize)]
pub(crate) struct SettingsForm {
    #[serde(default)]
    confirmation_message: String,
    #[serde(default)]
    redirect_url: String,
    notifications_enabled: Option<String>,
    proof_of_work: Option<String>,
    #[serde(default)]
    closes_at: String,
    #[serde(default)]
    max_responses: String,
    /// One origin a line; the core checks and normalises them.
    #[serde(default)]
    allowed_origins: String,
}

/// The posted settings as the core's keys; an empty box clears its key. Values that
/// are not even of the right shape are a problem to fix; the core checks the rest.
fn settings_from(posted: &SettingsForm) -> Result<Map<String, Value>, &'static str> {
    let mut settings = Map::new();
    let message = posted.confirmation_message.trim();
    // The core wants a string here: an empty one is the default message.
    settings.insert(
        "confirmation_message".into(),
        Value::String(message.to_owned()),
    );
    let url = posted.redirect_url.trim();
    settings.insert(
        "redirect_url".into(),
        if url.is_empty() {
            Value::Null
        } else {
            Value::String(url.to_owned())
        },
    );
    settings.insert(
        "notifications_enabled".into(),
        Value::Bool(posted.notifications_enabled.is_some()),
    );
    settings.insert(
        "proof_of_work".into(),
        Value::Bool(posted.proof_of_work.is_some()),
    );
    let closes = posted.closes_at.trim();
    let closes = if closes.is_empty() {
        Value::Null
    } else {
        let at = NaiveDateTime::parse_from_str(closes, "%Y-%m-%dT%H:%M")
            .or_else(|_| NaiveDateTime::parse_from_str(closes, "%Y-%m-%dT%H:%M:%S"))
            .map_err(|_| "Closing date: give a date and time such as 2030-12-31T18:00 (UTC).")?;
        Value::String(convert::rfc3339(at.and_utc()))
    };
    settings.insert("closes_at".into(), closes);
    let cap = posted.max_responses.trim();
    let cap =
        if cap.is_empty() {
            Value::Null
        } else {
            Value::from(cap.parse::<i64>().map_err(
                |_| "Response cap: write a whole number of at least 1, or leave it empty.",
            )?)
        };
    settings.insert("max_responses".into(), cap);
    let origins: Vec<Value> = posted
        .allowed_origins
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| Value::String(line.to_owned()))
        .collect();
    let origins = if origins.is_empty() {
        Value::Null
    } else {
        Value::Array(origins)
    };
    settings.insert("allowed_origins".into(), origins);
    Ok(settings)
}

/// `POST /app/forms/{id}/settings`
pub(crate) async fn settings(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<SettingsForm>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return not_found(&owner);
    };
    let settings = match settings_from(&posted) {
        Ok(settings) => settings,
        Err(problem) => return refused(&owner, &id, &origin, problem).await,
    };
    let form = pb::Form {
        id: id.clone(),
        settings: Some(convert::object_to_struct(&settings)),
        ..Default::default()
    };
    let result = update(&owner, &csrf, form, &["settings"]).await;
    after(&owner, &id, &origin, result, "settings", "settings").await
}

#[derive(Deserialize)]
pub(crate) struct Lifecycle {
    #[serde(default)]
    action: String,
}

/// `POST /app/forms/{id}/status`: publish, close (now), reopen, archive, back to draft.
pub(crate) async fn status(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Lifecycle>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return not_found(&owner);
    };
    let to_status = |status: pb::FormStatus| pb::Form {
        id: id.clone(),
        status: status.into(),
        ..Default::default()
    };
    let closes = |at: Value| {
        let mut settings = Map::new();
        settings.insert("closes_at".into(), at);
        pb::Form {
            id: id.clone(),
            settings: Some(convert::object_to_struct(&settings)),
            ..Default::default()
        }
    };
    let (change, path, done) = match posted.action.as_str() {
        "publish" => (to_status(pb::FormStatus::Published), "status", "published"),
        "archive" => (to_status(pb::FormStatus::Archived), "status", "archived"),
        "draft" => (to_status(pb::FormStatus::Draft), "status", "drafted"),
        "close" => (
            closes(Value::String(convert::rfc3339(Utc::now()))),
            "settings",
            "closed",
        ),
        "reopen" => (closes(Value::Null), "settings", "reopened"),
        _ => {
            return refused(
                &owner,
                &id,
                &origin,
                "Choose publish, close, reopen, archive or back to draft.",
            )
            .await;
        }
    };
    let result = update(&owner, &csrf, change, &[path]).await;
    after(&owner, &id, &origin, result, done, "lifecycle").await
}

#[derive(Deserialize)]
pub(crate) struct Confirm {
    #[serde(default)]
    confirm_title: String,
}

/// `POST /app/forms/{id}/delete`: only with the form's title typed exactly (checked
/// here too: the script that holds the button back is a convenience).
pub(crate) async fn delete(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Confirm>,
) -> Response {
    let form = match load(&owner, &id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    if posted.confirm_title != form.title {
        return refused(
            &owner,
            &form.id,
            &origin,
            "To delete the form, type its title exactly as it is shown.",
        )
        .await;
    }
    let deleted = owner
        .state
        .forms()
        .delete_form(owner.change(
            pb::DeleteFormRequest {
                id: form.id.clone(),
            },
            &csrf,
        ))
        .await;
    match deleted {
        Ok(_) => see_other("/app/forms?done=deleted"),
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_messages_name_fields_and_settings_as_the_page_does() {
        assert_eq!(
            humane("fields[2].label is required"),
            "Field 3: label is required"
        );
        assert_eq!(
            humane("settings.max_responses: must be a positive integer or null"),
            "Response cap: must be a positive integer or null"
        );
        assert_eq!(humane("fields[x] and fields[10]"), "fields[x] and Field 11");
        assert_eq!(
            humane("fields[4].show_if[0].field is not a field of this form"),
            "Field 5: condition 1: field is not a field of this form"
        );
        assert_eq!(
            humane("fields[2].show_if: the conditions on \"A\" can never all hold"),
            "Field 3: conditions: the conditions on \"A\" can never all hold"
        );
    }

    #[test]
    fn every_kind_is_offered_once() {
        let mut names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        names.dedup();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 17);
        assert!(kind_of("file_upload").is_some_and(|k| k.file));
        assert_eq!(kind_label("colour"), "colour");
    }

    #[test]
    fn pages_count_as_the_core_counts_them() {
        let field = |kind: &str| pb::FormField {
            r#type: kind.into(),
            ..Default::default()
        };
        let form = [
            field(PAGE_BREAK),
            field("short_text"),
            field(PAGE_BREAK),
            field("email"),
        ];
        assert_eq!(pages(&form), [1, 1, 2, 2]);
        assert_eq!(pages(&form[1..]), [1, 2, 2]);
    }

    #[test]
    fn empty_settings_boxes_clear_their_keys() {
        let posted = SettingsForm {
            confirmation_message: " ".into(),
            redirect_url: String::new(),
            notifications_enabled: None,
            proof_of_work: Some("on".into()),
            closes_at: "2030-12-31T18:00".into(),
            max_responses: String::new(),
            allowed_origins: " https://www.example.com \r\n\r\nhttp://localhost:8080\n".into(),
        };
        let settings = settings_from(&posted).expect("valid");
        assert_eq!(
            settings["allowed_origins"],
            serde_json::json!(["https://www.example.com", "http://localhost:8080"])
        );
        assert_eq!(settings["redirect_url"], Value::Null);
        assert_eq!(settings["max_responses"], Value::Null);
        assert_eq!(settings["closes_at"], "2030-12-31T18:00:00.000Z");
        let none = SettingsForm {
            allowed_origins: " \n".into(),
            ..SettingsForm {
                confirmation_message: String::new(),
                redirect_url: String::new(),
                notifications_enabled: None,
                proof_of_work: None,
                closes_at: String::new(),
                max_responses: String::new(),
                allowed_origins: String::new(),
            }
        };
        assert_eq!(
            settings_from(&none).expect("valid")["allowed_origins"],
            Value::Null
        );
        assert_eq!(settings["notifications_enabled"], false);
        assert_eq!(settings["proof_of_work"], true);
        let bad = SettingsForm {
            max_responses: "ten".into(),
            ..posted
        };
        assert!(settings_from(&bad).is_err());
    }
}
