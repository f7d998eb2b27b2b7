//! Endpoint mode: the owner keeps their own HTML form on their own site and points its
//! `action` at `/f/{short_id}` (the Formspree model). There is no page of ours, so no
//! start token: the one rule added to the hosted page's is the origin, checked first,
//! before anything is counted or read: the page's origin (its `Origin` header, or its
//! `Referer`'s) must be listed in the form's `allowed_origins`, and `Sec-Fetch-Site:
//! none` (an address typed or bookmarked, no page) is refused whatever it claims.
//! Everything after that is the hosted page's: the per-IP throttle, the honeypot, the
//! same validation, files, device metadata and events (`Source::Page`).
//!
//! Answers may be keyed by field id, or by the slug of the field's label, the key the
//! hosted page's prefill takes (`Email address` → `email_address`): owners write
//! `name="email"` in their HTML. The id wins over a slug; a slug two fields share
//! names neither (the core then refuses the key as no field of the form).

use super::{Hosted, pow};
use crate::error::CoreError;
use crate::files::{self, Upload};
use crate::forms::{Field, FieldKind, Form, now_millis, origins};
use crate::pb::{self, convert};
use crate::responses::create::{Source, Submission};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::net::IpAddr;

/// Field ids by the names a post may use for them: each id, and each label's slug that
/// no other field shares and that is no field's id.
fn names(fields: &[Field]) -> HashMap<String, String> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut shared = Vec::new();
    for field in fields {
        let slug = convert::slug(&field.label);
        if slug.is_empty() {
            continue;
        }
        if names.insert(slug.clone(), field.id.to_string()).is_some() {
            shared.push(slug);
        }
    }
    for slug in shared {
        names.remove(&slug);
    }
    for field in fields {
        names.insert(field.id.to_string(), field.id.to_string());
    }
    names
}

/// `answers` keyed by field id: a key that names a field by its slug becomes its id,
/// unless the post also answered the field by its id. Other keys stay as they are, for
/// validation to refuse.
fn by_id(fields: &[Field], answers: Map<String, Value>) -> Map<String, Value> {
    let names = names(fields);
    let mut keyed = Map::with_capacity(answers.len());
    let (ids, rest): (Vec<_>, Vec<_>) = answers
        .into_iter()
        .partition(|(key, _)| names.get(key) == Some(key));
    keyed.extend(ids);
    for (key, value) in rest {
        match names.get(&key) {
            Some(id) if !keyed.contains_key(id) => {
                keyed.insert(id.clone(), value);
            }
            Some(_) => {}
            None => {
                keyed.insert(key, value);
            }
        }
    }
    keyed
}

/// The reply to a stored (or a robot's dropped) submission, from the form's settings.
fn reply(settings: &Map<String, Value>, response_id: String) -> pb::SubmitToEndpointResponse {
    let c = super::pages::confirmation(settings, response_id);
    pb::SubmitToEndpointResponse {
        response_id: c.response_id,
        confirmation_message: c.confirmation_message,
        redirect_url: c.redirect_url,
    }
}

impl Hosted {
    /// The published form at `short_id`, if a page of `caller`'s origin may post to it.
    /// A form that is not published, or unknown, refuses every origin alike: which
    /// forms exist is not told to other sites.
    async fn endpoint_form(
        &self,
        short_id: &str,
        caller: Option<&pb::EndpointCaller>,
    ) -> Result<(Form, i64), CoreError> {
        let caller = caller.cloned().unwrap_or_default();
        if caller.sec_fetch_site.eq_ignore_ascii_case("none") {
            return Err(CoreError::OriginNotAllowed);
        }
        match self.published(short_id).await {
            Ok((form, count)) if origins::allows(&form.settings, &caller.origin) => {
                Ok((form, count))
            }
            Ok(_) | Err(CoreError::NotFound(_)) => Err(CoreError::OriginNotAllowed),
            Err(e) => Err(e),
        }
    }

    pub(super) async fn endpoint_origin(
        &self,
        req: pb::CheckEndpointOriginRequest,
    ) -> Result<pb::CheckEndpointOriginResponse, CoreError> {
        let caller = pb::EndpointCaller {
            origin: req.origin,
            sec_fetch_site: String::new(),
        };
        self.endpoint_form(&req.short_id, Some(&caller)).await?;
        Ok(pb::CheckEndpointOriginResponse {})
    }

    pub(super) async fn endpoint_challenge(
        &self,
        ip: IpAddr,
        req: pb::GetEndpointChallengeRequest,
    ) -> Result<pb::GetEndpointChallengeResponse, CoreError> {
        let (form, count) = self
            .endpoint_form(&req.short_id, req.caller.as_ref())
            .await?;
        // Challenges cost a signature each: the allowance of admissions bounds them.
        self.throttles.admit(ip)?;
        let now = now_millis();
        Self::check_open(&form, count, now)?;
        Ok(pb::GetEndpointChallengeResponse {
            challenge: self.challenge_for(&form, now),
        })
    }

    pub(super) async fn endpoint_admit(
        &self,
        ip: IpAddr,
        req: pb::AdmitEndpointSubmissionRequest,
    ) -> Result<pb::AdmitEndpointSubmissionResponse, CoreError> {
        let (form, count) = self
            .endpoint_form(&req.short_id, req.caller.as_ref())
            .await?;
        self.throttles.admit(ip)?;
        Self::check_open(&form, count, now_millis())?;
        // A file may be posted under its field's id or its label's slug: a limit under
        // each name, so that the edge can hold a file to it as it streams in.
        let names = names(&form.fields);
        let file_fields = names
            .into_iter()
            .filter_map(|(name, id)| {
                let field = form.fields.iter().find(|f| f.id.to_string() == id)?;
                (field.kind == FieldKind::FileUpload).then(|| pb::FileFieldLimit {
                    field_id: name,
                    max_bytes: files::max_bytes(field),
                })
            })
            .collect();
        Ok(pb::AdmitEndpointSubmissionResponse { file_fields })
    }

    pub(super) async fn endpoint_submit(
        &self,
        ip: IpAddr,
        req: pb::SubmitToEndpointRequest,
    ) -> Result<pb::SubmitToEndpointResponse, CoreError> {
        let (form, _) = self
            .endpoint_form(&req.short_id, req.caller.as_ref())
            .await?;
        self.throttles.submit(ip)?;
        // The proof of work, when the form asks for one (or a solution is sent): after
        // the origin and the throttle, before the honeypot and any file is stored.
        let proven = pow::required(&form.settings) || !req.pow_solution.trim().is_empty();
        if proven {
            let proof = self.pow.verify(&req.pow_solution, form.id, now_millis())?;
            super::store::spend(&self.pool, &proof).await?;
        }
        if req.honeypot_filled {
            // A robot filled the hidden field: answer as if all went well, with an id
            // of no response, and store nothing.
            tracing::info!(form_id = %form.id, "endpoint submission dropped by the honeypot");
            return Ok(reply(&form.settings, uuid::Uuid::new_v4().to_string()));
        }
        // Before any file is staged (see `Hosted::submit`).
        let device = super::device::read(&req.user_agent).await;
        let names = names(&form.fields);
        // Files may be named by a field's slug too.
        let uploads = req
            .files
            .into_iter()
            .map(|f| Upload {
                field_id: names.get(&f.field_id).cloned().unwrap_or(f.field_id),
                file_name: f.file_name,
                content: f.content,
            })
            .collect();
        let staged = self
            .stage(&form.fields, uploads, self.grace_until())
            .await?;
        let ids = staged.ids.clone();
        let answers = req
            .answers
            .as_ref()
            .map(convert::struct_to_object)
            .unwrap_or_default();
        let submission = Submission {
            id: None,
            answers: by_id(&form.fields, answers),
            metadata: Map::new(),
            device_type: device.device_type,
            browser: device.browser,
            os: device.os,
            // No page of ours was served: when the visitor started is not known.
            started_at: None,
            from: Source::Page {
                short_id: req.short_id,
                proven,
            },
            files: staged,
            // The owner's HTML shows every question: the conditions are applied here,
            // and what the visitor answered to a question they would not have been
            // shown is dropped, not refused.
            drop_unshown: true,
            // The owner's own page: its language is not known.
            language: None,
        };
        let stored = self
            .batcher
            .submit(form.id, submission)
            .await
            .map(|stored| reply(&stored.settings, stored.response.id.to_string()));
        if stored.is_err() {
            self.file_store.unstage(&self.pool, &ids).await;
        }
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    fn field(label: &str) -> Field {
        serde_json::from_value(json!({
            "id": Uuid::new_v4(), "type": "short_text", "label": label, "required": false
        }))
        .expect("a field")
    }

    #[test]
    fn answers_are_keyed_by_id_or_by_the_labels_slug() {
        let email = field("Email address");
        let name = field("Name");
        let twin_a = field("Note");
        let twin_b = field("note!");
        let fields = [email.clone(), name.clone(), twin_a, twin_b];
        let answers = json!({
            "email_address": "a@example.com",
            name.id.to_string(): "by id",
            "name": "by slug",
            "note": "whose?",
            "unknown": "x",
        });
        let keyed = by_id(&fields, answers.as_object().cloned().expect("object"));
        assert_eq!(
            Value::Object(keyed),
            json!({
                email.id.to_string(): "a@example.com",
                name.id.to_string(): "by id",
                "note": "whose?",
                "unknown": "x",
            })
        );
    }

    #[test]
    fn slugs_are_the_prefills() {
        assert_eq!(convert::slug("  UTM source "), "utm_source");
        assert_eq!(convert::slug("E-mail (work)"), "e_mail_work");
        assert_eq!(convert::slug("Ünïcode Näme"), "ünïcode_näme");
        assert_eq!(convert::slug("!!!"), "");
    }
}
