//! The HTML of hosted pages and the headers they carry: self-contained pages (no
//! external assets, no JavaScript), one inline style sheet allowed by its hash.

use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use forms::pb;
use std::collections::HashMap;

use super::nonce::NONCE_FIELD;

/// Hidden field with the page's start token.
pub(super) const TOKEN_FIELD: &str = "_token";
/// Honeypot: invisible to people, tempting to robots.
pub(super) const HONEYPOT_FIELD: &str = "website";

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
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}";

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

/// What to put back in the page after a failed submission.
#[derive(Default)]
pub(super) struct Filled {
    pub(super) values: HashMap<String, String>,
    pub(super) errors: HashMap<String, String>,
    pub(super) banner: Option<String>,
}

fn field_html(field: &pb::FormField, filled: &Filled) -> String {
    let id = escape(&field.id);
    let value = filled
        .values
        .get(&field.id)
        .map(String::as_str)
        .unwrap_or("");
    let error = filled.errors.get(&field.id);
    let mut attrs = format!("id=\"f-{id}\" name=\"{id}\"");
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
    let control = match field.r#type.as_str() {
        "long_text" | "textarea" => format!("<textarea {attrs}>{}</textarea>", escape(value)),
        "email" => format!(
            "<input type=\"email\" autocomplete=\"email\" {attrs} value=\"{}\">",
            escape(value)
        ),
        "number" => format!(
            "<input type=\"number\" step=\"any\" inputmode=\"decimal\" {attrs} value=\"{}\">",
            escape(value)
        ),
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
    let marker = if field.required {
        " <span class=\"req\" aria-hidden=\"true\">*</span>"
    } else {
        ""
    };
    let error_html = error.map_or(String::new(), |e| {
        format!("<p class=\"error\" id=\"e-{id}\">{}</p>", escape(e))
    });
    format!(
        "<div class=\"field\"><label for=\"f-{id}\">{}{marker}</label>{control}{error_html}</div>",
        escape(&field.label)
    )
}

pub(super) fn form_page(
    short_id: &str,
    form: &pb::Form,
    (token, nonce): (&str, Option<&str>),
    filled: &Filled,
) -> String {
    let enctype = if form.fields.iter().any(|f| f.r#type == "file_upload") {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let mut body = format!(
        "<form method=\"post\" action=\"/f/{}\" enctype=\"{enctype}\" novalidate><h1>{}</h1>",
        escape(short_id),
        escape(&form.title)
    );
    if let Some(description) = &form.description {
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
    body.push_str(&format!(
        "<div class=\"hp\" aria-hidden=\"true\"><label for=\"hp\">Leave empty</label>\
         <input id=\"hp\" name=\"{HONEYPOT_FIELD}\" tabindex=\"-1\" autocomplete=\"off\"></div>"
    ));
    for field in &form.fields {
        body.push_str(&field_html(field, filled));
    }
    body.push_str("<button type=\"submit\">Submit</button></form>");
    page(&form.title, &body)
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
/// own style sheet and posts to itself (or its redirect) and nothing else, who may frame
/// it (`--frame-ancestors`), no MIME sniffing, no referrer to other sites.
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
        "default-src 'none'; style-src {}; form-action {form_action}; base-uri 'none'; frame-ancestors {}",
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
