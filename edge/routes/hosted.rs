//! Hosted form pages, `/f/{short_id}`: the HTML a visitor fills in, and its submission.
//! Self-contained pages (no external assets), usable without JavaScript. Every rule
//! (CSRF token, honeypot, throttle, validation) is the core's: this module renders.

use crate::body::PathParams;
use crate::call::Call;
use crate::error::reason_of;
use crate::http_server::is_body_timeout;
use crate::state::AppState;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use forms::pb::{self, ErrorReason};
use std::collections::HashMap;
use tonic_types::StatusExt;

/// Cookie carrying the visitor's CSRF nonce (the page's token is bound to it).
const CSRF_COOKIE: &str = "formsd_csrf";
/// Hidden field with the page's start token.
const TOKEN_FIELD: &str = "_token";
/// Honeypot: invisible to people, tempting to robots.
const HONEYPOT_FIELD: &str = "website";
/// Hidden field carrying the nonce of a page framed by another site (see [`NonceHome`]).
const NONCE_FIELD: &str = "_nonce";

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

fn message_page(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!(
        "<div class=\"card\"><h1>{}</h1><p>{}</p></div>",
        escape(title),
        escape(text)
    );
    (status, Html(page(title, &body))).into_response()
}

/// What to put back in the page after a failed submission.
#[derive(Default)]
struct Filled {
    values: HashMap<String, String>,
    errors: HashMap<String, String>,
    banner: Option<String>,
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

fn form_page(
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

/// Where the visitor's CSRF nonce lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NonceHome {
    /// A same-site cookie (`fresh`: set it with this reply).
    Cookie { fresh: bool },
    /// The page itself, for a page framed by another site: browsers withhold same-site
    /// cookies there, and third-party cookies may be blocked. A submission may then
    /// bring its nonce in the form only when the browser attests that it comes from
    /// the page itself (`Sec-Fetch-Site: same-origin`, which no web page can forge), so
    /// another site still cannot post in a visitor's name.
    Page,
}

fn header_is(headers: &HeaderMap, name: &str, value: &str) -> bool {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case(value))
}

fn sane_nonce(value: &str) -> bool {
    value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The visitor's nonce and where it lives: the cookie's when it has a sane one (several
/// open tabs keep working); for a submission from a framed page, the one it posted;
/// else a new one, kept in the page when the page is framed, in a cookie otherwise.
fn nonce(headers: &HeaderMap, posted: Option<&str>) -> (String, NonceHome) {
    if let Some(nonce) = cookie_nonce(headers) {
        return (nonce, NonceHome::Cookie { fresh: false });
    }
    if let Some(posted) = posted.filter(|n| sane_nonce(n))
        && header_is(headers, "sec-fetch-site", "same-origin")
    {
        return (posted.to_owned(), NonceHome::Page);
    }
    let fresh = uuid::Uuid::new_v4().simple().to_string();
    if header_is(headers, "sec-fetch-dest", "iframe") {
        (fresh, NonceHome::Page)
    } else {
        (fresh, NonceHome::Cookie { fresh: true })
    }
}

fn cookie_nonce(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == CSRF_COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|v| sane_nonce(v))
}

fn with_cookie(mut response: Response, nonce: &str, home: NonceHome) -> Response {
    if home == (NonceHome::Cookie { fresh: true })
        && let Ok(value) = HeaderValue::from_str(&format!(
            "{CSRF_COOKIE}={nonce}; Path=/f/; HttpOnly; SameSite=Strict; Max-Age=86400"
        ))
    {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The page for an error of the core that is not about the answers.
fn error_page(call: &Call, status: &tonic::Status) -> Response {
    let reason = reason_of(status);
    match reason {
        // A draft or archived form's page does not exist for visitors, posted to or not.
        Some(ErrorReason::NotFound | ErrorReason::FormNotPublished) => message_page(
            StatusCode::NOT_FOUND,
            "Form not found",
            "There is no open form at this address.",
        ),
        Some(ErrorReason::FormClosed) => message_page(
            StatusCode::GONE,
            "This form is closed",
            "It no longer accepts responses.",
        ),
        Some(ErrorReason::ResponseLimitReached) => message_page(
            StatusCode::FORBIDDEN,
            "This form is not accepting responses",
            "Its owner has reached their response limit.",
        ),
        Some(ErrorReason::RateLimited) => message_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many submissions",
            "Please wait a minute and try again.",
        ),
        _ => {
            tracing::error!(
                reason = reason.map(ErrorReason::code),
                message = status.message(),
                "hosted page failed"
            );
            message_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Something went wrong",
                &format!("Please try again shortly (request id {}).", call.request_id),
            )
        }
    }
}

/// The per-field messages of a VALIDATION_ERROR, by field id: the core sends one
/// `ErrorInfo` metadata entry per field, keyed `field.<field id>`.
fn field_errors(status: &tonic::Status) -> HashMap<String, String> {
    status
        .get_details_error_info()
        .map(|info| {
            info.metadata
                .into_iter()
                .filter_map(|(k, v)| k.strip_prefix("field.").map(|id| (id.to_owned(), v)))
                .collect()
        })
        .unwrap_or_default()
}

/// The form's page; `filled` is what a failed submission left (answers, errors,
/// banner), empty on a first visit.
fn form_reply(
    short_id: &str,
    (form, token): (Option<pb::Form>, &str),
    filled: &Filled,
    status: StatusCode,
    (nonce, home): (&str, NonceHome),
) -> Response {
    let Some(form) = form else {
        return message_page(
            StatusCode::NOT_FOUND,
            "Form not found",
            "There is no open form at this address.",
        );
    };
    let page_nonce = (home == NonceHome::Page).then_some(nonce);
    let html = form_page(short_id, &form, (token, page_nonce), filled);
    let mut response = with_cookie((status, Html(html)).into_response(), nonce, home);
    // After a submission the page may send the visitor on to the form's redirect URL:
    // the policy lets the form post lead there too.
    let redirect = form
        .settings
        .as_ref()
        .and_then(|s| s.fields.get("redirect_url"))
        .and_then(|v| match &v.kind {
            Some(prost_types::value::Kind::StringValue(url)) => url::Url::parse(url).ok(),
            _ => None,
        })
        .map(|url| url.origin().ascii_serialization())
        .filter(|origin| origin != "null");
    response.extensions_mut().insert(FormActionOrigin(redirect));
    response
}

/// Where else than the page itself a form post may lead (the redirect URL's origin).
#[derive(Clone)]
struct FormActionOrigin(Option<String>);

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
pub async fn page_headers(
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

pub async fn show(
    State(state): State<AppState>,
    call: Call,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
) -> Response {
    let (nonce, home) = nonce(&headers, None);
    let request = call.request(pb::GetHostedFormRequest {
        short_id: short_id.clone(),
        csrf_nonce: nonce.clone(),
    });
    match state.hosted().get_hosted_form(request).await {
        Ok(reply) => {
            let page = reply.into_inner();
            form_reply(
                &short_id,
                (page.form, &page.start_token),
                &Filled::default(),
                StatusCode::OK,
                (&nonce, home),
            )
        }
        Err(status) => with_cookie(error_page(&call, &status), &nonce, home),
    }
}

/// A submitted page: the answers as text, the files, the token and the honeypot.
#[derive(Default)]
struct Posted {
    values: HashMap<String, String>,
    files: Vec<pb::UploadedFile>,
    token: String,
    nonce: Option<String>,
    honeypot_filled: bool,
}

impl Posted {
    fn add_text(&mut self, name: String, value: String) {
        match name.as_str() {
            TOKEN_FIELD => self.token = value,
            NONCE_FIELD => self.nonce = Some(value),
            HONEYPOT_FIELD => self.honeypot_filled |= !value.trim().is_empty(),
            _ => {
                self.values.insert(name, value);
            }
        }
    }
}

/// Reads a urlencoded or multipart body; `Err` is the page to answer with.
async fn read_posted(state: &AppState, req: Request) -> Result<Posted, Response> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let too_large = || {
        message_page(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Too large",
            "The files sent are too large for this form.",
        )
    };
    // A body that stopped arriving is told apart from one that is too large.
    let unreadable = |error: &(dyn std::error::Error + 'static)| {
        if is_body_timeout(error) {
            message_page(
                StatusCode::REQUEST_TIMEOUT,
                "Too slow",
                "The submission took too long to arrive. Please try again.",
            )
        } else {
            too_large()
        }
    };
    let mut posted = Posted::default();
    if content_type.starts_with("application/x-www-form-urlencoded") {
        let body = axum::body::to_bytes(req.into_body(), state.max_body_bytes)
            .await
            .map_err(|e| unreadable(&e))?;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(&body).unwrap_or_default();
        for (name, value) in pairs {
            posted.add_text(name, value);
        }
        return Ok(posted);
    }
    if !content_type.starts_with("multipart/form-data") {
        return Err(message_page(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported submission",
            "Submit the form from its page.",
        ));
    }
    let mut multipart = axum::extract::Multipart::from_request(req, state)
        .await
        .map_err(|_| {
            message_page(
                StatusCode::BAD_REQUEST,
                "Unreadable submission",
                "Submit the form from its page.",
            )
        })?;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(error) => return Err(unreadable(&error)),
        };
        let name = field.name().unwrap_or_default().to_owned();
        match field.file_name().map(str::to_owned) {
            Some(file_name) => {
                let content = field.bytes().await.map_err(|e| unreadable(&e))?;
                // A file input left empty still sends a part, without a name or bytes.
                if !(file_name.is_empty() && content.is_empty()) {
                    posted.files.push(pb::UploadedFile {
                        field_id: name,
                        file_name,
                        content: content.to_vec(),
                    });
                }
            }
            None => {
                let value = field.text().await.unwrap_or_default();
                posted.add_text(name, value);
            }
        }
    }
    Ok(posted)
}

pub async fn submit(
    State(state): State<AppState>,
    call: Call,
    PathParams(short_id): PathParams<String>,
    req: Request,
) -> Response {
    let headers = req.headers().clone();
    let posted = match read_posted(&state, req).await {
        Ok(posted) => posted,
        Err(page) => return page,
    };
    let Posted {
        values,
        files,
        token,
        nonce: posted_nonce,
        honeypot_filled,
    } = posted;
    let answers = prost_types::Struct {
        fields: values
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    forms::pb::convert::json_to_value(&serde_json::Value::String(v.clone())),
                )
            })
            .collect(),
    };
    let (nonce, home) = nonce(&headers, posted_nonce.as_deref());
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let request = call.request(pb::SubmitHostedFormRequest {
        short_id: short_id.clone(),
        start_token: token,
        csrf_nonce: nonce.clone(),
        answers: Some(answers),
        user_agent,
        honeypot_filled,
        files,
    });
    match state.hosted().submit_hosted_form(request).await {
        Ok(reply) => {
            let reply = reply.into_inner();
            if let Some(url) = reply.redirect_url.filter(|u| !u.is_empty()) {
                return Redirect::to(&url).into_response();
            }
            let text = reply
                .confirmation_message
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "Your response was recorded.".to_owned());
            message_page(StatusCode::OK, "Thank you", &text)
        }
        Err(status) => {
            // Refused answers or an expired page: the page again, answers kept. The core
            // sends the form and a fresh token with the refusal, so this is one call.
            let (banner, errors, code) = match reason_of(&status) {
                Some(ErrorReason::ValidationError) => (
                    "Please correct the fields marked below.",
                    field_errors(&status),
                    StatusCode::UNPROCESSABLE_ENTITY,
                ),
                Some(ErrorReason::CsrfFailed) => (
                    "This page had expired. Your answers are kept: please submit again.",
                    HashMap::new(),
                    StatusCode::FORBIDDEN,
                ),
                _ => return error_page(&call, &status),
            };
            let Some(page) = pb::details::detail::<pb::HostedFormPage>(&status) else {
                // Only a core of an older release refuses without the page.
                return error_page(&call, &status);
            };
            let filled = Filled {
                values,
                errors,
                banner: Some(banner.to_owned()),
            };
            let form = (page.form, page.start_token.as_str());
            form_reply(&short_id, form, &filled, code, (&nonce, home))
        }
    }
}
