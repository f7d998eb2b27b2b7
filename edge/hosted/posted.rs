//! Reading a submitted page. A urlencoded body is small and read whole. A multipart one
//! is streamed: the page puts its token before any input, so when the first file
//! arrives the core is asked to admit the submission (throttle, token, open form) and
//! says how large each field's file may be; a file is then refused as soon as it
//! passes its limit, and nothing of a refused submission's files is read.

use super::choices::OTHER;
use super::nonce::{NONCE_FIELD, NonceHome, nonce};
use super::page::{
    HONEYPOT_FIELD, LANG_FIELD, NAV_FIELD, PAGE_FIELD, POW_FIELD, RESUME_FIELD, TOKEN_FIELD,
    message_page,
};
use super::words::Words;
use crate::http::call::Call;
use crate::http::server::is_body_timeout;
use crate::http::state::AppState;
use axum::extract::multipart::MultipartError;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The honeypot of an owner's form: the name Formspree's users already have in their
/// HTML. Not the hosted page's `website`, which a form may well have a field for.
pub(crate) const ENDPOINT_HONEYPOT_FIELD: &str = "_gotcha";
/// The input (or JSON key) carrying the solved proof-of-work challenge, when the form's
/// `proof_of_work` is on (the hosted page's is `pow_solution`: on an owner's form, a
/// name that starts with `_` is the service's).
pub(crate) const ENDPOINT_POW_FIELD: &str = "_pow";

/// Parts (fields and files) a submission may have: a form's largest number of fields
/// with room for the page's own. More is no visitor's submission, and each part would
/// cost validation work.
const MAX_PARTS: usize = 256;

/// Bytes a text part may have: the longest answer (20,000 characters of up to 4 bytes
/// each) with room to spare.
const MAX_TEXT_PART: usize = 128 * 1024;

/// A submitted page: the answers as text, the files, the token, the honeypot, the proof
/// of work and, for a form with pages, where the visitor is.
#[derive(Default)]
pub(super) struct Posted {
    /// The answers' inputs as posted, names and values in page order.
    pub values: Vec<(String, String)>,
    pub files: Vec<pb::UploadedFile>,
    pub token: String,
    /// The nonce posted by a framed page.
    pub nonce: Option<String>,
    pub honeypot_filled: bool,
    /// A form with pages: the page posted (0: the whole form), the resume token it
    /// carried, and whether the visitor pressed Back.
    pub page: i32,
    pub resume: String,
    pub back: bool,
    /// The nonce settled on when the submission was admitted, so that a refused
    /// admission's page and cookie agree on it.
    pub settled: Option<(String, NonceHome)>,
    /// Posted by the owner's own form (endpoint mode), whose own inputs are named apart.
    pub endpoint: bool,
    /// The solved proof-of-work challenge, when the page had one (the hosted page's
    /// `pow_solution` input, an owner's form's `_pow`).
    pub pow_solution: String,
    /// The answers of a JSON body (endpoint mode), typed as the API's; `values` is
    /// then empty.
    pub json_answers: Option<Map<String, Value>>,
    /// The language the page was shown in, when the form has several.
    pub language: String,
}

impl Posted {
    /// An empty submission of the hosted page (`endpoint` false) or of an owner's form.
    pub(super) fn new(endpoint: bool) -> Self {
        Self {
            endpoint,
            ..Self::default()
        }
    }

    pub(super) fn add_text(&mut self, name: String, value: String) {
        if self.endpoint {
            // On the owner's own form, a name that starts with `_` is the service's,
            // never an answer (no field id or label slug starts so).
            match name.as_str() {
                ENDPOINT_HONEYPOT_FIELD => {
                    self.honeypot_filled |= !value.trim().is_empty();
                }
                ENDPOINT_POW_FIELD => self.pow_solution = value,
                reserved if reserved.starts_with('_') => {}
                _ => self.values.push((name, value)),
            }
            return;
        }
        match name.as_str() {
            TOKEN_FIELD => self.token = value,
            NONCE_FIELD => self.nonce = Some(value),
            HONEYPOT_FIELD => self.honeypot_filled |= !value.trim().is_empty(),
            PAGE_FIELD => self.page = value.trim().parse().unwrap_or(0),
            RESUME_FIELD => self.resume = value,
            NAV_FIELD => self.back = value == "back",
            POW_FIELD => self.pow_solution = value,
            LANG_FIELD => self.language = value,
            _ => self.values.push((name, value)),
        }
    }

    /// The visitor's nonce and where it lives.
    pub(super) fn nonce(&self, headers: &HeaderMap) -> (String, NonceHome) {
        self.settled
            .clone()
            .unwrap_or_else(|| nonce(headers, self.nonce.as_deref()))
    }
}

/// The answers of a posted page, as the core takes them. An input's name is the field's
/// id, with a suffix for the kinds whose answer is not the text as typed:
/// - `<id>:one`: the option id of a single choice or dropdown (`""`: none chosen);
/// - `<id>:many`: one ticked option of a multiple choice (repeated; none ticked: absent);
/// - `<id>:other`: the free text of the "Other" choice (`{"other": text}`), taken when
///   "Other" is chosen or when its text is filled in;
/// - `<id>:int`: a rating or scale, an integer;
/// - `<id>:bool`: a ticked checkbox (`true`; unticked: absent);
/// - `<id>:kept`: the token of a file a refused page kept, its box still ticked
///   (`{"kept": token}`; unticked: absent, and the file is not attached).
///
/// A value that is not what its suffix says is passed on as text, for the core to name
/// the field in its error.
pub(super) fn decode(pairs: &[(String, String)]) -> Map<String, Value> {
    let mut answers = Map::new();
    let mut others: Vec<(&str, &str)> = Vec::new();
    for (name, value) in pairs {
        let (id, suffix) = name.rsplit_once(':').unwrap_or((name.as_str(), ""));
        match suffix {
            "one" if value.is_empty() => {}
            "one" if value == OTHER => {
                answers.insert(id.to_owned(), json!({ "other": "" }));
            }
            "many" => {
                let item = if value == OTHER {
                    json!({ "other": "" })
                } else {
                    Value::String(value.clone())
                };
                match answers.get_mut(id) {
                    Some(Value::Array(items)) => items.push(item),
                    _ => {
                        answers.insert(id.to_owned(), Value::Array(vec![item]));
                    }
                }
            }
            "other" => others.push((id, value.as_str())),
            "int" => {
                let number = value
                    .trim()
                    .parse::<i64>()
                    .map_or_else(|_| Value::String(value.clone()), Value::from);
                answers.insert(id.to_owned(), number);
            }
            "bool" => {
                answers.insert(id.to_owned(), Value::Bool(true));
            }
            // A file a refused page kept, still ticked (`hosted::kept` in the core).
            "kept" => {
                answers.insert(id.to_owned(), json!({ "kept": value }));
            }
            "" | "one" => {
                answers.insert(id.to_owned(), Value::String(value.clone()));
            }
            // Not an input of the page: passed on whole, for the core to refuse.
            _ => {
                answers.insert(name.clone(), Value::String(value.clone()));
            }
        }
    }
    for (id, text) in others {
        let text = text.trim();
        let other = json!({ "other": text });
        match answers.get_mut(id) {
            Some(Value::Array(items)) => {
                let slot = items.iter_mut().find(|i| i.get("other").is_some());
                match slot {
                    Some(slot) => *slot = other,
                    None if !text.is_empty() => items.push(other),
                    None => {}
                }
            }
            Some(answer) if answer.get("other").is_some() => *answer = other,
            None if !text.is_empty() => {
                answers.insert(id.to_owned(), other);
            }
            _ => {}
        }
    }
    answers
}

/// Why reading stopped before the end of the body.
pub(super) enum Stop {
    /// The body could not be read: answered with a page, or for a caller of the
    /// endpoint that reads JSON, with the error envelope.
    Unreadable(Unreadable),
    /// The core refused to admit the submission: answer as for a refused submission,
    /// with what was read so far.
    Refused(tonic::Status, Box<Posted>),
}

/// A body that could not be read, said for people (`title`, `text`) and for programs
/// (`reason`, the SPEC code; `status`, the page's HTTP status).
pub(super) struct Unreadable {
    pub status: StatusCode,
    pub reason: ErrorReason,
    pub title: &'static str,
    pub text: String,
}

impl Unreadable {
    /// The page that says so (in English: the body was not read, nor its form).
    pub(super) fn page(&self, words: Words) -> Response {
        message_page(words, self.status, self.title, &self.text)
    }
}

fn too_large(what: &str) -> Stop {
    Stop::Unreadable(Unreadable {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        reason: ErrorReason::PayloadTooLarge,
        title: "Too large",
        text: format!("{what} Please go back and choose a smaller one."),
    })
}

fn too_many() -> Stop {
    Stop::Unreadable(Unreadable {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        reason: ErrorReason::PayloadTooLarge,
        title: "Too many fields",
        text: "This submission has more fields than any form.".to_owned(),
    })
}

fn too_slow() -> Stop {
    Stop::Unreadable(Unreadable {
        status: StatusCode::REQUEST_TIMEOUT,
        reason: ErrorReason::RequestTimeout,
        title: "Too slow",
        text: "The submission took too long to arrive. Please try again.".to_owned(),
    })
}

/// A urlencoded body that could not be read: it stopped arriving, or it is too large.
pub(super) fn unreadable(error: &axum::Error) -> Stop {
    if is_body_timeout(error) {
        too_slow()
    } else {
        too_large("The submission is larger than any form takes.")
    }
}

/// A body that is not what its Content-Type says.
pub(super) fn malformed(text: &str) -> Stop {
    Stop::Unreadable(Unreadable {
        status: StatusCode::BAD_REQUEST,
        reason: ErrorReason::ValidationError,
        title: "Unreadable submission",
        text: text.to_owned(),
    })
}

/// A multipart body that is not one.
fn unreadable_multipart() -> Stop {
    malformed("Submit the form from its page.")
}

/// A multipart body that could not be read: it stopped arriving, it is too large, or
/// it is malformed.
fn broken(error: &MultipartError) -> Stop {
    if is_body_timeout(error) {
        too_slow()
    } else if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large("The submission is larger than any form takes.")
    } else {
        unreadable_multipart()
    }
}

/// What the page at `/f/{short_id}` sent.
pub(super) struct Submitted<'a> {
    pub state: &'a AppState,
    pub call: &'a Call,
    pub short_id: &'a str,
    pub headers: &'a HeaderMap,
    /// Where the owner's own form was posted from, in endpoint mode; `None` for the
    /// hosted page.
    pub endpoint: Option<&'a pb::EndpointCaller>,
}

impl Submitted<'_> {
    /// Reads a urlencoded or multipart body.
    pub(super) async fn read(&self, req: Request) -> Result<Posted, Stop> {
        let content_type = self
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if content_type.starts_with("application/x-www-form-urlencoded") {
            return self.read_urlencoded(req).await;
        }
        if !content_type.starts_with("multipart/form-data") {
            return Err(Stop::Unreadable(Unreadable {
                status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                reason: ErrorReason::UnsupportedMediaType,
                title: "Unsupported submission",
                text: "Submit the form from its page.".to_owned(),
            }));
        }
        self.read_multipart(req).await
    }

    async fn read_urlencoded(&self, req: Request) -> Result<Posted, Stop> {
        let body = axum::body::to_bytes(req.into_body(), self.state.max_body_bytes)
            .await
            .map_err(|e| unreadable(&e))?;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(&body).unwrap_or_default();
        if pairs.len() > MAX_PARTS {
            return Err(too_many());
        }
        let mut posted = Posted::new(self.endpoint.is_some());
        for (name, value) in pairs {
            posted.add_text(name, value);
        }
        Ok(posted)
    }

    async fn read_multipart(&self, req: Request) -> Result<Posted, Stop> {
        let mut multipart = axum::extract::Multipart::from_request(req, self.state)
            .await
            .map_err(|_| unreadable_multipart())?;
        let mut posted = Posted::new(self.endpoint.is_some());
        // Largest file of each file field, once the submission is admitted.
        let mut limits: Option<HashMap<String, u64>> = None;
        let mut parts = 0;
        while let Some(mut field) = multipart.next_field().await.map_err(|e| broken(&e))? {
            parts += 1;
            if parts > MAX_PARTS {
                return Err(too_many());
            }
            let name = field.name().unwrap_or_default().to_owned();
            let Some(file_name) = field.file_name().map(str::to_owned) else {
                let mut text = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(|e| broken(&e))? {
                    if text.len() + chunk.len() > MAX_TEXT_PART {
                        return Err(too_large("An answer is longer than any field takes."));
                    }
                    text.extend_from_slice(&chunk);
                }
                posted.add_text(name, String::from_utf8_lossy(&text).into_owned());
                continue;
            };
            // A file input left empty still sends a part, without a name or bytes.
            if file_name.is_empty() {
                continue;
            }
            let limits = match &mut limits {
                Some(limits) => limits,
                None => limits.insert(self.admit(&mut posted).await?),
            };
            // A file for a field that takes none is not read: the core names the error.
            // A field's limit is spent on its first file, so a second file for it is not
            // read either (each would otherwise get the whole limit again).
            let Some(max) = limits.remove(&name) else {
                posted.files.push(pb::UploadedFile {
                    field_id: name,
                    file_name,
                    content: Vec::new(),
                });
                continue;
            };
            let mut content = Vec::new();
            while let Some(chunk) = field.chunk().await.map_err(|e| broken(&e))? {
                if (content.len() + chunk.len()) as u64 > max {
                    let mb = max as f64 / (1024.0 * 1024.0);
                    return Err(too_large(&format!(
                        "The file \"{file_name}\" is larger than this field takes ({mb:.1} MB)."
                    )));
                }
                content.extend_from_slice(&chunk);
            }
            posted.files.push(pb::UploadedFile {
                field_id: name,
                file_name,
                content,
            });
        }
        Ok(posted)
    }

    /// Asks the core to admit a submission whose first file is arriving; returns the
    /// largest file of each file field.
    async fn admit(&self, posted: &mut Posted) -> Result<HashMap<String, u64>, Stop> {
        if let Some(caller) = self.endpoint {
            let request = self.call.request(pb::AdmitEndpointSubmissionRequest {
                short_id: self.short_id.to_owned(),
                caller: Some(caller.clone()),
            });
            return match self.state.hosted().admit_endpoint_submission(request).await {
                Ok(reply) => Ok(reply
                    .into_inner()
                    .file_fields
                    .into_iter()
                    .map(|f| (f.field_id, f.max_bytes))
                    .collect()),
                Err(status) => Err(Stop::Refused(status, Box::new(std::mem::take(posted)))),
            };
        }
        let settled = nonce(self.headers, posted.nonce.as_deref());
        let request = self.call.request(pb::AdmitHostedSubmissionRequest {
            short_id: self.short_id.to_owned(),
            start_token: posted.token.clone(),
            csrf_nonce: settled.0.clone(),
        });
        posted.settled = Some(settled);
        match self.state.hosted().admit_hosted_submission(request).await {
            Ok(reply) => Ok(reply
                .into_inner()
                .file_fields
                .into_iter()
                .map(|f| (f.field_id, f.max_bytes))
                .collect()),
            Err(status) => Err(Stop::Refused(status, Box::new(std::mem::take(posted)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn decodes_each_kind() {
        let answers = decode(&pairs(&[
            ("t", "text"),
            ("s:one", "o1"),
            ("d:one", ""),
            ("m:many", "a"),
            ("m:many", "_other"),
            ("m:other", " mine "),
            ("r:int", "4"),
            ("x:int", "four"),
            ("c:bool", "true"),
            ("o:one", "_other"),
            ("o:other", "else"),
            ("p:other", "typed only"),
            ("q:other", ""),
        ]));
        assert_eq!(
            Value::Object(answers),
            json!({
                "t": "text", "s": "o1", "m": ["a", {"other": "mine"}], "r": 4, "x": "four",
                "c": true, "o": {"other": "else"}, "p": {"other": "typed only"}
            })
        );
    }
}
