//! The HTML of hosted pages and the headers they carry: self-contained pages (no
//! external assets), one inline style sheet allowed by its hash, and no JavaScript
//! except, on a page with conditions, the script that applies them (served from the
//! binary, `conditions::SCRIPT_PATH`; the page works without it), and on the page of a
//! form that turns `proof_of_work` on, the script that solves its challenge
//! (`SCRIPT_PATH`; without it the page says the form needs JavaScript).

use crate::http::state::AppState;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use forms::pb;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

use super::conditions;
use super::nonce::NONCE_FIELD;

/// Hidden field with the page's start token.
pub(super) const TOKEN_FIELD: &str = "_token";
/// Honeypot: invisible to people, tempting to robots.
pub(super) const HONEYPOT_FIELD: &str = "website";
/// Hidden field with the page of a form with pages (1-based).
pub(super) const PAGE_FIELD: &str = "_page";
/// Hidden field with the resume token of the visitor's partial response.
pub(super) const RESUME_FIELD: &str = "_resume";
/// Name of the page's buttons (`next`, `back`) on a form with pages.
pub(super) const NAV_FIELD: &str = "nav";
/// Hidden field the page's script fills with the solved proof-of-work challenge.
pub(super) const POW_FIELD: &str = "pow_solution";
/// Where the proof-of-work script is served (two segments: never a form's address; its
/// route: `router::router`).
pub(super) const SCRIPT_PATH: &str = "/f/assets/pow.js";
/// The proof-of-work script (see its comments), compiled into the binary.
const SCRIPT: &str = include_str!("assets/pow.js");

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}\
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem}\
form,.card{background:#fff;border-radius:8px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}\
h1{font-size:1.6rem;margin:0 0 .5rem}.field{margin:1.25rem 0}label{display:block;font-weight:600;margin-bottom:.35rem}\
input,textarea{box-sizing:border-box;width:100%;font:inherit;padding:.6rem;border:1px solid #9aa3b2;border-radius:6px}\
textarea{min-height:7rem}input:focus,textarea:focus{outline:3px solid #8cb4ff;border-color:#2f6fed}\
.req{color:#b3261e}.error{color:#b3261e;margin:.35rem 0 0}[aria-invalid=true]{border-color:#b3261e}\
.banner{background:#fdecea;color:#7a1c14;padding:.75rem;border-radius:6px}\
button{font:inherit;font-weight:600;background:#2f6fed;color:#fff;border:0;border-radius:6px;padding:.7rem 1.4rem;cursor:pointer}\
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}\
fieldset{border:0;padding:0}legend{font-weight:600;margin-bottom:.35rem;padding:0}\
select{box-sizing:border-box;width:100%;font:inherit;padding:.6rem;border:1px solid #9aa3b2;border-radius:6px;background:#fff}\
label.opt{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.25rem 0}\
label.opt input{width:auto;margin:0}.row{display:flex;flex-wrap:wrap;gap:.25rem 1rem}\
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}\
[hidden]{display:none!important}h2{font-size:1.25rem;margin:1.5rem 0 .5rem}.hint{color:#4a5568;font-style:italic;margin:.25rem 0}\
.steps{margin:0;color:#4a5568}progress{width:100%;height:.6rem;margin:.25rem 0 .5rem}\
.nav{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}button.secondary{background:#fff;color:#1d4fb8;border:1px solid #1d4fb8}\
.card{margin-top:1rem}.card h2{margin-top:0}\
button:disabled{background:#5a6785;cursor:progress}.pow{color:#4a5568;margin:.75rem 0 0}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        escape(title)
    )
}

pub(super) fn message_page(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!(
        "<div class=\"card\"><h1>{}</h1><p>{}</p></div>",
        escape(title),
        escape(text)
    );
    (status, Html(page(title, &body))).into_response()
}

/// A refused post of an owner's own form (endpoint mode): what went wrong, the
/// problems one per line, and a link back to the page it came from (`back`, its
/// `Referer`), where the visitor's browser usually still holds the answers.
pub(super) fn refusal_page(
    status: StatusCode,
    title: &str,
    text: &str,
    problems: &[String],
    back: Option<&str>,
) -> Response {
    let mut body = format!(
        "<div class=\"card\"><h1>{}</h1><p>{}</p>",
        escape(title),
        escape(text)
    );
    if !problems.is_empty() {
        body.push_str("<ul>");
        for problem in problems {
            body.push_str(&format!("<li class=\"error\">{}</li>", escape(problem)));
        }
        body.push_str("</ul>");
    }
    if let Some(back) = back {
        body.push_str(&format!(
            "<p><a href=\"{}\">Back to the form</a></p>",
            escape(back)
        ));
    }
    body.push_str("</div>");
    (status, Html(page(title, &body))).into_response()
}

/// What to put back in the page: after a failed submission, the answers as posted
/// (decoded as the core takes them), the core's per-field errors and a banner; on a
/// first visit, what the URL query prefilled.
#[derive(Default)]
pub(super) struct Filled {
    pub(super) values: HashMap<String, Value>,
    pub(super) errors: HashMap<String, String>,
    pub(super) banner: Option<String>,
}

/// A value as the text an input shows.
fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A bound (`min`/`max`) of a field as the text of an HTML attribute.
fn bound(value: Option<&prost_types::Value>) -> Option<String> {
    let json = value.map(forms::pb::convert::value_to_json)?;
    match json {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A bound as an integer, for rating and scale.
fn int_bound(value: Option<&prost_types::Value>) -> Option<i64> {
    match value.map(forms::pb::convert::value_to_json)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The range of choices of a rating (1..max, 5 by default) or a scale (min..max, 0..10
/// by default), kept to at most 101 choices whatever the form says.
pub(super) fn range_of(field: &pb::FormField) -> (i64, i64) {
    let (low, high) = if field.r#type == "rating" {
        (1, int_bound(field.max.as_ref()).unwrap_or(5))
    } else {
        (
            int_bound(field.min.as_ref()).unwrap_or(0),
            int_bound(field.max.as_ref()).unwrap_or(10),
        )
    };
    (low, high.clamp(low, low.saturating_add(100)))
}

/// Whether the answer `value` holds the option `option_id` (single or multiple choice).
fn holds(value: Option<&Value>, option_id: &str) -> bool {
    match value {
        Some(Value::String(s)) => s == option_id,
        Some(Value::Number(n)) => n.to_string() == option_id,
        Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(option_id)),
        _ => false,
    }
}

/// The free text of an "other" answer, if the answer has one.
fn other_text(value: Option<&Value>) -> Option<String> {
    let other = |v: &Value| v.get("other").map(|t| text_of(Some(t)));
    match value {
        Some(Value::Array(items)) => items.iter().find_map(other),
        Some(v) => other(v),
        None => None,
    }
}

fn checked(on: bool) -> &'static str {
    if on { " checked" } else { "" }
}

/// A group of radio buttons or checkboxes in a fieldset: `choices` are (value, label).
fn choice_group(
    field: &pb::FormField,
    filled: &Filled,
    (input, suffix): (&str, &str),
    choices: &[(String, String)],
    class: &str,
) -> String {
    let id = escape(&field.id);
    let value = filled.values.get(&field.id);
    let error = filled.errors.get(&field.id);
    let mut attrs = String::new();
    if error.is_some() {
        attrs.push_str(&format!(
            " aria-invalid=\"true\" aria-describedby=\"e-{id}\""
        ));
    }
    // A group of radios is a radiogroup, which may say it is required; a group of
    // checkboxes says it in its legend, for screen readers.
    let mut spoken = "";
    if input == "radio" {
        attrs.push_str(" role=\"radiogroup\"");
        if field.required {
            attrs.push_str(" aria-required=\"true\"");
        }
    } else if field.required {
        spoken = "<span class=\"sr\"> (required)</span>";
    }
    let mut html = format!(
        "<fieldset class=\"field\" id=\"f-{id}\"{attrs}><legend>{}{}{spoken}</legend><div class=\"{class}\">",
        escape(&field.label),
        marker(field.required)
    );
    for (n, (option, label)) in choices.iter().enumerate() {
        html.push_str(&format!(
            "<label class=\"opt\" for=\"f-{id}-{n}\"><input type=\"{input}\" id=\"f-{id}-{n}\" \
             name=\"{id}:{suffix}\" value=\"{}\"{}> {}</label>",
            escape(option),
            checked(holds(value, option)),
            escape(label)
        ));
    }
    html.push_str("</div>");
    if field.allow_other && suffix != "int" {
        let text = other_text(value);
        html.push_str(&format!(
            "<label class=\"opt\" for=\"f-{id}-other\"><input type=\"{input}\" id=\"f-{id}-other\" \
             name=\"{id}:{suffix}\" value=\"{OTHER}\"{}> Other</label>\
             <input type=\"text\" id=\"f-{id}-other-text\" name=\"{id}:other\" \
             aria-label=\"{} (other)\" value=\"{}\">",
            checked(text.is_some()),
            escape(&field.label),
            escape(&text.unwrap_or_default())
        ));
    }
    html.push_str(&error_html(&id, error));
    html.push_str("</fieldset>");
    html
}

fn marker(required: bool) -> &'static str {
    if required {
        " <span class=\"req\" aria-hidden=\"true\">*</span>"
    } else {
        ""
    }
}

fn error_html(id: &str, error: Option<&String>) -> String {
    error.map_or(String::new(), |e| {
        format!("<p class=\"error\" id=\"e-{id}\">{}</p>", escape(e))
    })
}

/// The value of the "Other" choice of a single or multiple choice field (its text goes
/// in `<field id>:other`).
pub(super) const OTHER: &str = "_other";

fn field_html(field: &pb::FormField, filled: &Filled) -> String {
    let id = escape(&field.id);
    let filled_value = filled.values.get(&field.id);
    let value = text_of(filled_value);
    let value = value.as_str();
    let error = filled.errors.get(&field.id);
    let options: Vec<(String, String)> = field
        .options
        .iter()
        .map(|o| (o.id.clone(), o.label.clone()))
        .collect();
    match field.r#type.as_str() {
        "hidden" => {
            return format!(
                "<input type=\"hidden\" name=\"{id}\" value=\"{}\">",
                escape(value)
            );
        }
        "single_choice" => return choice_group(field, filled, ("radio", "one"), &options, "opts"),
        "multiple_choice" => {
            return choice_group(field, filled, ("checkbox", "many"), &options, "opts");
        }
        "rating" => {
            let (low, high) = range_of(field);
            let stars: Vec<(String, String)> = (low..=high)
                .map(|n| {
                    (
                        n.to_string(),
                        format!("{n} star{}", if n == 1 { "" } else { "s" }),
                    )
                })
                .collect();
            return choice_group(field, filled, ("radio", "int"), &stars, "row");
        }
        "scale" => {
            let (low, high) = range_of(field);
            let points: Vec<(String, String)> = (low..=high)
                .map(|n| {
                    let end = if n == low {
                        field.min_label.as_deref()
                    } else if n == high {
                        field.max_label.as_deref()
                    } else {
                        None
                    };
                    let label = match end.filter(|l| !l.is_empty()) {
                        Some(end) => format!("{n} ({end})"),
                        None => n.to_string(),
                    };
                    (n.to_string(), label)
                })
                .collect();
            return choice_group(field, filled, ("radio", "int"), &points, "row");
        }
        "checkbox" => {
            let mut attrs = String::new();
            if field.required {
                attrs.push_str(" required aria-required=\"true\"");
            }
            if error.is_some() {
                attrs.push_str(&format!(
                    " aria-invalid=\"true\" aria-describedby=\"e-{id}\""
                ));
            }
            let on = matches!(filled_value, Some(Value::Bool(true)));
            return format!(
                "<div class=\"field\"><label class=\"opt\" for=\"f-{id}\"><input type=\"checkbox\" \
                 id=\"f-{id}\" name=\"{id}:bool\" value=\"true\"{}{attrs}> {}{}</label>{}</div>",
                checked(on),
                escape(&field.label),
                marker(field.required),
                error_html(&id, error)
            );
        }
        _ => {}
    }
    let name = if field.r#type == "dropdown" {
        format!("{id}:one")
    } else {
        id.clone()
    };
    let mut attrs = format!("id=\"f-{id}\" name=\"{name}\"");
    if field.required {
        attrs.push_str(" required aria-required=\"true\"");
    }
    if let Some(placeholder) = &field.placeholder {
        attrs.push_str(&format!(" placeholder=\"{}\"", escape(placeholder)));
    }
    if error.is_some() {
        attrs.push_str(&format!(
            " aria-invalid=\"true\" aria-describedby=\"e-{id}\""
        ));
    }
    let bounds = || {
        let mut b = String::new();
        if let Some(min) = bound(field.min.as_ref()) {
            b.push_str(&format!(" min=\"{}\"", escape(&min)));
        }
        if let Some(max) = bound(field.max.as_ref()) {
            b.push_str(&format!(" max=\"{}\"", escape(&max)));
        }
        b
    };
    let control = match field.r#type.as_str() {
        "long_text" | "textarea" => format!("<textarea {attrs}>{}</textarea>", escape(value)),
        "email" => format!(
            "<input type=\"email\" autocomplete=\"email\" {attrs} value=\"{}\">",
            escape(value)
        ),
        "number" => format!(
            "<input type=\"number\" step=\"any\" inputmode=\"decimal\" {attrs}{} value=\"{}\">",
            bounds(),
            escape(value)
        ),
        "date" => format!(
            "<input type=\"date\" {attrs}{} value=\"{}\">",
            bounds(),
            escape(value)
        ),
        "url" => format!(
            "<input type=\"url\" inputmode=\"url\" {attrs} value=\"{}\">",
            escape(value)
        ),
        "phone" => format!(
            "<input type=\"tel\" autocomplete=\"tel\" {attrs} value=\"{}\">",
            escape(value)
        ),
        "dropdown" => {
            let mut html = format!("<select {attrs}><option value=\"\">Choose…</option>");
            for (option, label) in &options {
                html.push_str(&format!(
                    "<option value=\"{}\"{}>{}</option>",
                    escape(option),
                    if holds(filled_value, option) {
                        " selected"
                    } else {
                        ""
                    },
                    escape(label)
                ));
            }
            let other = other_text(filled_value);
            if field.allow_other {
                html.push_str(&format!(
                    "<option value=\"{OTHER}\"{}>Other</option>",
                    if other.is_some() { " selected" } else { "" }
                ));
            }
            html.push_str("</select>");
            if field.allow_other {
                html.push_str(&format!(
                    "<label for=\"f-{id}-other-text\">Other (please specify)</label>\
                     <input type=\"text\" id=\"f-{id}-other-text\" name=\"{id}:other\" value=\"{}\">",
                    escape(&other.unwrap_or_default())
                ));
            }
            html
        }
        "file_upload" => {
            let accept: Vec<String> = field
                .allowed_types
                .iter()
                .map(|t| format!(".{t}"))
                .collect();
            format!(
                "<input type=\"file\" {attrs} accept=\"{}\">",
                escape(&accept.join(","))
            )
        }
        _ => format!("<input type=\"text\" {attrs} value=\"{}\">", escape(value)),
    };
    format!(
        "<div class=\"field\"><label for=\"f-{id}\">{}{}</label>{control}{}</div>",
        escape(&field.label),
        marker(field.required),
        error_html(&id, error)
    )
}

/// Where a page stands in a form with pages, and what it links to.
#[derive(Default)]
pub(super) struct Paging<'a> {
    /// The core's progress: the page to show, its fields, the answers saved. None: the
    /// whole form on one page.
    pub(super) progress: Option<&'a pb::HostedProgress>,
    /// The URL query the page posts with (its prefill), kept from page to page so that
    /// fields on later pages are prefilled too; empty for none.
    pub(super) query: String,
    /// The origin of the links a visitor copies (`https://forms.example.com`), if known.
    pub(super) origin: Option<String>,
}

/// The address of a form's page, `/f/{short_id}?query`.
pub(super) fn page_address(short_id: &str, query: &str) -> String {
    if query.is_empty() {
        format!("/f/{short_id}")
    } else {
        format!("/f/{short_id}?{query}")
    }
}

/// Gives the first control of a field's HTML `autofocus`, so that a page refused for
/// its answers opens on the first field to fix (without JavaScript too).
fn autofocus(html: &mut String) {
    let first = ["<input ", "<select ", "<textarea "]
        .iter()
        .filter_map(|tag| html.find(tag).map(|at| at + tag.len() - 1))
        .min();
    if let Some(at) = first {
        html.insert_str(at, " autofocus");
    }
}

/// The fields a page shows: on a page of a form with pages, those the core listed (in
/// form order); else all of them.
fn fields_shown<'f>(
    form: &'f pb::Form,
    progress: Option<&pb::HostedProgress>,
) -> Vec<&'f pb::FormField> {
    match progress {
        Some(p) => form
            .fields
            .iter()
            .filter(|f| p.fields.contains(&f.id))
            .collect(),
        None => form.fields.iter().collect(),
    }
}

/// The page's fields: a page break opens a part of the form titled by its label; a
/// field or part with conditions on answers of the same page carries them for the
/// script, with a hint for pages without it. Returns the HTML and whether any
/// element has conditions.
fn fields_html(form: &pb::Form, shown: &[&pb::FormField], filled: &Filled) -> (String, bool) {
    let on_page: HashSet<&str> = shown.iter().map(|f| f.id.as_str()).collect();
    let first_error = shown.iter().find(|f| filled.errors.contains_key(&f.id));
    let mut html = String::new();
    let mut open_part = false;
    let mut any = false;
    for field in shown {
        let conditions = conditions::same_page(field, &on_page);
        let data = (!conditions.is_empty()).then(|| {
            any = true;
            format!(
                " data-show-if=\"{}\"",
                escape(&conditions::data_attribute(form, &conditions))
            )
        });
        if field.r#type == "page_break" {
            if open_part {
                html.push_str("</section>");
            }
            open_part = true;
            html.push_str(&format!(
                "<section class=\"part\"{}><h2>{}</h2>",
                data.unwrap_or_default(),
                escape(&field.label)
            ));
            if !conditions.is_empty() {
                html.push_str(&format!(
                    "<p class=\"hint\">{}</p>",
                    escape(&conditions::hint(form, &conditions, "Answer this part"))
                ));
            }
            continue;
        }
        let mut control = field_html(field, filled);
        if first_error.is_some_and(|f| f.id == field.id) {
            autofocus(&mut control);
        }
        match data {
            Some(data) => {
                html.push_str(&format!("<div class=\"cond\"{data}>"));
                // A hidden field is never seen: its hint would speak of nothing.
                if field.r#type != "hidden" {
                    html.push_str(&format!(
                        "<p class=\"hint\">{}</p>",
                        escape(&conditions::hint(form, &conditions, "Answer"))
                    ));
                }
                html.push_str(&control);
                html.push_str("</div>");
            }
            None => html.push_str(&control),
        }
    }
    if open_part {
        html.push_str("</section>");
    }
    (html, any)
}

/// The "Continue later" part of a page whose answers are saved: the resume link (with
/// the page's prefill, for the fields of pages to come), and the same as text to copy.
fn resume_html(short_id: &str, token: &str, paging: &Paging<'_>) -> String {
    let mut query = serde_urlencoded::to_string([("resume", token)]).unwrap_or_default();
    if !paging.query.is_empty() {
        query.push('&');
        query.push_str(&paging.query);
    }
    let link = page_address(short_id, &query);
    let origin = paging.origin.as_deref();
    let full = format!("{}{link}", origin.unwrap_or(""));
    format!(
        "<section class=\"card\" aria-labelledby=\"later\"><h2 id=\"later\">Continue later</h2>\
         <p>Your answers so far are saved. To come back to this form later or on another device, \
         keep this link: <a href=\"{}\">Continue later</a></p>\
         <label for=\"resume-link\">Your link to continue</label>\
         <input id=\"resume-link\" type=\"text\" readonly value=\"{}\"></section>",
        escape(&link),
        escape(&full)
    )
}

/// The data attributes of a form whose page solves a proof-of-work challenge.
fn pow_attributes(challenge: &pb::ProofOfWorkChallenge) -> String {
    format!(
        " data-pow-algorithm=\"{}\" data-pow-challenge=\"{}\" data-pow-salt=\"{}\" \
         data-pow-max=\"{}\" data-pow-signature=\"{}\"",
        escape(&challenge.algorithm),
        escape(&challenge.challenge),
        escape(&challenge.salt),
        challenge.max_number,
        escape(&challenge.signature)
    )
}

/// The live region where the proof-of-work script says why Submit waits, then that it
/// is ready.
const POW_STATUS: &str =
    "<p id=\"pow-status\" class=\"pow\" role=\"status\" aria-live=\"polite\"></p>";

pub(super) fn form_page(
    short_id: &str,
    form: &pb::Form,
    (token, nonce, pow): (&str, Option<&str>, Option<&pb::ProofOfWorkChallenge>),
    filled: &Filled,
    paging: &Paging<'_>,
) -> String {
    let progress = paging.progress;
    let shown = fields_shown(form, progress);
    let enctype = if shown.iter().any(|f| f.r#type == "file_upload") {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let (fields, has_conditions) = fields_html(form, &shown, filled);
    let action = match progress {
        Some(_) => page_address(short_id, &paging.query),
        None => page_address(short_id, ""),
    };
    let (current, pages) = progress.map_or((1, 1), |p| (p.page.max(1), p.page_count.max(1)));
    let mut body = format!(
        "<form method=\"post\" action=\"{}\" enctype=\"{enctype}\" novalidate{}{}><h1>{}</h1>",
        escape(&action),
        if has_conditions {
            " data-conditions"
        } else {
            ""
        },
        pow.map(pow_attributes).unwrap_or_default(),
        escape(&form.title)
    );
    if pages > 1 {
        body.push_str(&format!(
            "<p class=\"steps\" id=\"steps\">Page {current} of {pages}</p>\
             <progress value=\"{current}\" max=\"{pages}\" aria-labelledby=\"steps\"></progress>"
        ));
    }
    if let Some(description) = form.description.as_ref().filter(|_| current == 1) {
        body.push_str(&format!("<p>{}</p>", escape(description)));
    }
    if let Some(banner) = &filled.banner {
        body.push_str(&format!(
            "<p class=\"banner\" role=\"alert\">{}</p>",
            escape(banner)
        ));
    }
    // The page's own fields come before any input: browsers send parts in page order,
    // and the edge admits a submission by its token when the first file arrives.
    body.push_str(&format!(
        "<input type=\"hidden\" name=\"{TOKEN_FIELD}\" value=\"{}\">",
        escape(token)
    ));
    if let Some(nonce) = nonce {
        body.push_str(&format!(
            "<input type=\"hidden\" name=\"{NONCE_FIELD}\" value=\"{}\">",
            escape(nonce)
        ));
    }
    if pow.is_some() {
        body.push_str(&format!(
            "<input type=\"hidden\" name=\"{POW_FIELD}\" value=\"\">\
             <noscript><p class=\"banner\">This form needs JavaScript to be sent: your browser \
             solves a small puzzle that shows it is not a robot, with no third party involved. \
             Please turn JavaScript on for this page.</p></noscript>"
        ));
    }
    if let Some(progress) = progress {
        body.push_str(&format!(
            "<input type=\"hidden\" name=\"{PAGE_FIELD}\" value=\"{current}\">\
             <input type=\"hidden\" name=\"{RESUME_FIELD}\" value=\"{}\">",
            escape(&progress.resume_token)
        ));
    }
    body.push_str(&format!(
        "<div class=\"hp\" aria-hidden=\"true\"><label for=\"hp\">Leave empty</label>\
         <input id=\"hp\" name=\"{HONEYPOT_FIELD}\" tabindex=\"-1\" autocomplete=\"off\"></div>"
    ));
    body.push_str(&fields);
    if pages > 1 {
        // Next (or Submit) first: it is the button Enter presses.
        body.push_str("<div class=\"nav\">");
        if current < pages {
            body.push_str(&format!(
                "<button type=\"submit\" name=\"{NAV_FIELD}\" value=\"next\">Next</button>"
            ));
        } else {
            body.push_str("<button type=\"submit\">Submit</button>");
        }
        if progress.is_some_and(|p| p.previous_page > 0) {
            body.push_str(&format!(
                "<button type=\"submit\" class=\"secondary\" name=\"{NAV_FIELD}\" value=\"back\" \
                 formnovalidate>Back</button>"
            ));
        }
        body.push_str("</div>");
    } else {
        body.push_str("<button type=\"submit\">Submit</button>");
    }
    if pow.is_some() {
        body.push_str(POW_STATUS);
    }
    body.push_str("</form>");
    if let Some(token) = progress
        .map(|p| p.resume_token.as_str())
        .filter(|t| !t.is_empty())
    {
        body.push_str(&resume_html(short_id, token, paging));
    }
    if has_conditions {
        body.push_str(&format!(
            "<script type=\"module\" src=\"{}\"></script>",
            conditions::SCRIPT_PATH
        ));
    }
    if pow.is_some() {
        body.push_str(&format!(
            "<script type=\"module\" src=\"{SCRIPT_PATH}\"></script>"
        ));
    }
    let title = if pages > 1 {
        format!("{} (page {current} of {pages})", form.title)
    } else {
        form.title.clone()
    };
    page(&title, &body)
}

/// `GET /f/assets/pow.js`: the proof-of-work script.
pub(crate) async fn script() -> Response {
    let mut response = SCRIPT.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // It changes only with the binary; an hour is a fair cache.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    // An owner's own page (endpoint mode) loads it as a module from another origin,
    // which browsers allow only with CORS; it is the same public file for everyone.
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// Where else than the page itself a form post may lead (the redirect URL's origin).
#[derive(Clone)]
pub(super) struct FormActionOrigin(pub(super) Option<String>);

/// The SHA-256 of the page's one inline style sheet, for the Content-Security-Policy.
static STYLE_HASH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(STYLE.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
});

/// The headers of every hosted page: a Content-Security-Policy that allows the page's
/// own style sheet, scripts of its own origin (the conditions' and the proof of work's) and posts to
/// itself (or its redirect) and nothing else, who may frame it (`--frame-ancestors`),
/// no MIME sniffing, no referrer to other sites.
pub(crate) async fn page_headers(
    State(state): State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut response = next.run(req).await;
    let form_action = match response.extensions().get::<FormActionOrigin>() {
        Some(FormActionOrigin(Some(origin))) => format!("'self' {origin}"),
        _ => "'self'".to_owned(),
    };
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src {}; form-action {form_action}; base-uri 'none'; frame-ancestors {}",
        *STYLE_HASH, state.frame_ancestors
    );
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}
