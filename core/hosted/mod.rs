//! Hosted form pages: the public side of a form. Visitors need no key; a start token
//! (CSRF protection and start time), a honeypot, a per-IP throttle and, for a form
//! that turns it on, a proof of work (`pow`) keep robots out without getting in a real
//! visitor's way. Submissions go through the same path as
//! API-created responses (`responses::create`).

mod bounds;
pub(crate) mod device;
pub(crate) mod endpoint;
mod kept;
mod language;
mod pages;
pub(crate) mod pow;
mod recall;
mod refusal;
mod steps;

/// The settings key of one question at a time (`steps`).
pub(crate) use steps::KEY as STEPS_KEY;
pub(crate) mod store;
mod theme;
pub(crate) mod throttle;
pub(crate) mod token;

use crate::config::CoreConfig;
use crate::error::{CoreError, ProofOfWorkRefusal};
use crate::files::{self, Staged, Upload, store::FileStore};
use crate::forms::{FieldKind, Form, now_millis, service::form_to_pb, store as forms_store};
use crate::gate;
use crate::pb::{self, convert, hosted_forms_service_server::HostedFormsService};
use crate::responses::TargetForm;
use crate::responses::create::{Batcher, Source, Submission, language_tag};
use pow::Pow;
use serde_json::Map;
use sqlx::PgPool;
use std::net::IpAddr;
use std::sync::Arc;
use throttle::Throttles;
use token::Tokens;
use tonic::{Request, Response, Status};

/// The HostedFormsService of the core.
#[derive(Clone)]
pub(crate) struct Hosted {
    pub(crate) pool: PgPool,
    pub(crate) config: Arc<CoreConfig>,
    pub(crate) tokens: Tokens,
    /// Proof-of-work challenges of the forms that turn them on.
    pow: Pow,
    /// Per-IP throttles of admissions and submissions.
    throttles: Arc<Throttles>,
    /// Who begins partial responses, for their per-visitor bound.
    visitors: bounds::Visitors,
    pub(crate) file_store: FileStore,
    /// Submissions to a form that arrive together are stored together (the API's too).
    pub(crate) batcher: Batcher,
}

impl Hosted {
    pub(crate) fn new(
        pool: PgPool,
        config: Arc<CoreConfig>,
        token_key: Vec<u8>,
        file_store: FileStore,
        batcher: Batcher,
    ) -> Self {
        let throttles = Throttles::per_minute(config.hosted_submissions_per_minute);
        Self {
            pool,
            config,
            pow: Pow::new(&token_key),
            visitors: bounds::Visitors::new(&token_key),
            tokens: Tokens::new(token_key),
            throttles: Arc::new(throttles),
            file_store,
            batcher,
        }
    }

    /// The published form at `short_id`, as it is now (not locked), with its response
    /// count.
    async fn published(&self, short_id: &str) -> Result<(Form, i64), CoreError> {
        forms_store::get_published_by_short_id(&self.pool, short_id)
            .await?
            .ok_or(CoreError::NotFound("form"))
    }

    /// The published form as the hosted page shows it: split into one question per
    /// page when the owner asks for steps (`steps`).
    async fn shown(&self, short_id: &str) -> Result<(Form, i64), CoreError> {
        let (mut form, count) = self.published(short_id).await?;
        steps::apply(&mut form);
        Ok((form, count))
    }

    /// Refuses a form that is closed (by date or by its response limit).
    fn check_open(
        form: &Form,
        response_count: i64,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), CoreError> {
        let target = TargetForm {
            id: form.id,
            account_id: form.account_id,
            status: form.status,
            fields: Vec::new(),
            settings: Arc::new(form.settings.clone()),
            response_count,
            last_submitted_at: None,
        };
        target.check_open(now)
    }

    async fn get(
        &self,
        req: pb::GetHostedFormRequest,
    ) -> Result<pb::GetHostedFormResponse, CoreError> {
        let (mut form, count) = self.shown(&req.short_id).await?;
        // The same rules as a submission: a closed form says so at once.
        let now = now_millis();
        Self::check_open(&form, count, now)?;
        let token = self.tokens.issue(form.id, now, &req.csrf_nonce);
        let pow_challenge = self.challenge_for(&form, now);
        let progress = if pages::has_progress(&form) {
            // An unknown, expired or completed resume token starts afresh.
            let partial = self
                .partial_of(&form, &req.resume_token)
                .await?
                .filter(|p| !p.completed);
            let asked = req.page.and_then(|p| usize::try_from(p).ok());
            Some(pages::progress(
                &form,
                partial.as_ref(),
                &req.resume_token,
                asked,
            ))
        } else {
            None
        };
        recall::fill(&mut form, progress.as_ref());
        let mut form = form_to_pb(form);
        // A quiz's answers stay on the server.
        for field in &mut form.fields {
            field.correct_answer = None;
            field.points = None;
        }
        Ok(pb::GetHostedFormResponse {
            form: Some(form),
            start_token: token,
            pow_challenge,
            progress,
        })
    }

    async fn admit(
        &self,
        ip: IpAddr,
        req: pb::AdmitHostedSubmissionRequest,
    ) -> Result<pb::AdmitHostedSubmissionResponse, CoreError> {
        self.throttles.admit(ip)?;
        let now = now_millis();
        let (form_id, _) = self.tokens.check(&req.start_token, &req.csrf_nonce, now)?;
        let (form, count) = self.shown(&req.short_id).await?;
        if form.id != form_id {
            return Err(CoreError::CsrfFailed);
        }
        Self::check_open(&form, count, now)?;
        Ok(pb::AdmitHostedSubmissionResponse {
            file_fields: form
                .fields
                .iter()
                .filter(|f| f.kind == FieldKind::FileUpload)
                .map(|f| pb::FileFieldLimit {
                    field_id: f.id.to_string(),
                    max_bytes: files::max_bytes(f),
                })
                .collect(),
        })
    }

    async fn submit(
        &self,
        ip: IpAddr,
        mut req: pb::SubmitHostedFormRequest,
    ) -> Result<pb::SubmitHostedFormResponse, kept::Refused> {
        self.throttles.submit(ip)?;
        let now = now_millis();
        let (form_id, started_at) = self.tokens.check(&req.start_token, &req.csrf_nonce, now)?;
        let mut answers = req
            .answers
            .take()
            .as_ref()
            .map(convert::struct_to_object)
            .unwrap_or_default();
        let kept = kept::take_tokens(&mut answers);
        let reply = pages::confirmation;
        // Work that needs no lock comes first: a robot's submission is answered, and
        // files are checked and written, before the form's row is locked.
        let mut staged = Staged::default();
        // A page of a form with pages: checked and saved as a partial response
        // (`pages`), its files staged for as long as the partial may wait.
        let paged = req.page > 0;
        let mut read = None;
        if req.honeypot_filled || !req.files.is_empty() || paged {
            let (form, count) = self.shown(&req.short_id).await?;
            if form.id != form_id {
                return Err(CoreError::CsrfFailed.into());
            }
            if req.honeypot_filled {
                // A robot filled the hidden field: answer as if all went well, store nothing.
                tracing::info!(form_id = %form_id, "hosted submission dropped by the honeypot");
                return Ok(reply(&form.settings, String::new()));
            }
            read = Some((form, count));
        }
        // The proof of work, before any file is staged: a solution sent is checked and
        // spent whatever the form's settings (only a tampered page sends a bad one); a
        // missing one is refused here when the form was read, else when the
        // submission is judged on the form (`Source::has_proof_for`), which saves a
        // read of the form for each submission to forms without files. Each saved
        // page of a form with pages costs a solution as a submission does (`bounds`);
        // only a step back, which saves nothing, needs none.
        let proven = if req.pow_solution.trim().is_empty() {
            if !(paged && req.back)
                && read
                    .as_ref()
                    .is_some_and(|(form, _)| pow::required(&form.settings))
            {
                return Err(CoreError::ProofOfWork(ProofOfWorkRefusal::Missing).into());
            }
            false
        } else {
            let proof = self.pow.verify(&req.pow_solution, form_id, now)?;
            store::spend(&self.pool, &proof).await?;
            true
        };
        // Before any file is staged: the first agent an instance reads compiles the
        // rules, which must not eat into a staged file's grace.
        let device = device::read(&req.user_agent).await;
        if let Some((form, count)) = read {
            if paged {
                Self::check_open(&form, count, now)?;
                let mut staged = self
                    .stage(&form.fields, uploads(req.files), self.page_files_until())
                    .await?;
                self.add_kept(&mut staged, kept, form_id, &req.csrf_nonce)
                    .await?;
                let held = staged.clone();
                let post = pages::PagePost {
                    page: usize::try_from(req.page).unwrap_or(0),
                    back: req.back,
                    resume_token: req.resume_token,
                    answers,
                    staged,
                    started_at,
                    device,
                    proven,
                    visitor: self.visitors.of(ip),
                    language: language_tag(req.language),
                };
                return match self.submit_page(form, post).await {
                    Ok(reply) => Ok(reply),
                    Err(e) => Err(self.refused(e, &held, form_id, &req.csrf_nonce).await),
                };
            }
            staged = self
                .stage(&form.fields, uploads(req.files), self.grace_until())
                .await?;
        }
        self.add_kept(&mut staged, kept, form_id, &req.csrf_nonce)
            .await?;
        let held = staged.clone();
        let submission = Submission {
            id: None,
            answers,
            metadata: Map::new(),
            device_type: device.device_type,
            browser: device.browser,
            os: device.os,
            started_at: Some(started_at),
            from: Source::Page {
                short_id: req.short_id,
                proven,
            },
            files: staged,
            drop_unshown: false,
            language: language_tag(req.language),
        };
        match self.batcher.submit(form_id, submission).await {
            Ok(stored) => Ok(reply(&stored.settings, stored.response.id.to_string())),
            Err(e) => Err(self.refused(e, &held, form_id, &req.csrf_nonce).await),
        }
    }
}

/// The files of a request, as the files module checks them.
fn uploads(files: Vec<pb::UploadedFile>) -> Vec<Upload> {
    files
        .into_iter()
        .map(|f| Upload {
            field_id: f.field_id,
            file_name: f.file_name,
            content: f.content,
        })
        .collect()
}

impl Hosted {
    /// Checks `uploads` against `fields` and writes them, staged until `until`: the
    /// files of a submission, before any lock is taken. Nothing to do without files.
    pub(crate) async fn stage(
        &self,
        fields: &[crate::forms::Field],
        uploads: Vec<Upload>,
        until: chrono::DateTime<chrono::Utc>,
    ) -> Result<Staged, CoreError> {
        if uploads.is_empty() {
            return Ok(Staged::default());
        }
        let (checked, answers) = files::check_all(fields, uploads)?;
        let ids = self.file_store.stage(&self.pool, checked, until).await?;
        Ok(Staged { ids, answers })
    }

    /// A proof-of-work challenge for `form`, when it asks for one.
    pub(crate) fn challenge_for(
        &self,
        form: &crate::forms::Form,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<pb::ProofOfWorkChallenge> {
        pow::required(&form.settings).then(|| {
            let c = self.pow.issue(form.id, now);
            pb::ProofOfWorkChallenge {
                algorithm: c.algorithm.to_owned(),
                challenge: c.challenge,
                salt: c.salt,
                max_number: c.max_number,
                signature: c.signature,
            }
        })
    }

    /// How long the files of a submission stored at once may wait
    /// (`--staged-file-grace`).
    pub(crate) fn grace_until(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Duration::from_std(self.config.staged_file_grace)
            .ok()
            .and_then(|grace| chrono::Utc::now().checked_add_signed(grace))
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
    }

    /// Forgets IPs whose allowance is full again.
    pub(crate) fn retain_recent(&self) {
        self.throttles.retain_recent();
    }
}

#[tonic::async_trait]
impl HostedFormsService for Hosted {
    async fn get_hosted_form(
        &self,
        req: Request<pb::GetHostedFormRequest>,
    ) -> Result<Response<pb::GetHostedFormResponse>, Status> {
        let id = gate::request_id(req.metadata());
        self.get(req.into_inner())
            .await
            .map(Response::new)
            .map_err(|e| e.into_status(&id))
    }

    async fn admit_hosted_submission(
        &self,
        req: Request<pb::AdmitHostedSubmissionRequest>,
    ) -> Result<Response<pb::AdmitHostedSubmissionResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let ip = gate::client_ip(&req, self.config.edge_secret.as_deref());
        let req = req.into_inner();
        let page = pb::GetHostedFormRequest {
            short_id: req.short_id.clone(),
            csrf_nonce: req.csrf_nonce.clone(),
            ..Default::default()
        };
        match self.admit(ip, req).await {
            Ok(reply) => Ok(Response::new(reply)),
            Err(e) => Err(self.refusal(e.into(), page, &id).await),
        }
    }

    async fn submit_hosted_form(
        &self,
        req: Request<pb::SubmitHostedFormRequest>,
    ) -> Result<Response<pb::SubmitHostedFormResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let ip = gate::client_ip(&req, self.config.edge_secret.as_deref());
        let req = req.into_inner();
        // A refused page of a form with pages is shown again: the same page, with what
        // was saved before it.
        let page = pb::GetHostedFormRequest {
            short_id: req.short_id.clone(),
            csrf_nonce: req.csrf_nonce.clone(),
            resume_token: req.resume_token.clone(),
            page: (req.page > 0).then_some(req.page),
        };
        let (short_id, language) = (req.short_id.clone(), req.language.clone());
        match self.submit(ip, req).await {
            Ok(mut reply) => {
                self.finish(&short_id, language.as_deref(), &mut reply)
                    .await;
                Ok(Response::new(reply))
            }
            Err(refused) => Err(self.refusal(refused, page, &id).await),
        }
    }

    async fn submit_to_endpoint(
        &self,
        req: Request<pb::SubmitToEndpointRequest>,
    ) -> Result<Response<pb::SubmitToEndpointResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let ip = gate::client_ip(&req, self.config.edge_secret.as_deref());
        self.endpoint_submit(ip, req.into_inner())
            .await
            .map(Response::new)
            .map_err(|e| e.into_status(&id))
    }

    async fn admit_endpoint_submission(
        &self,
        req: Request<pb::AdmitEndpointSubmissionRequest>,
    ) -> Result<Response<pb::AdmitEndpointSubmissionResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let ip = gate::client_ip(&req, self.config.edge_secret.as_deref());
        self.endpoint_admit(ip, req.into_inner())
            .await
            .map(Response::new)
            .map_err(|e| e.into_status(&id))
    }

    async fn check_endpoint_origin(
        &self,
        req: Request<pb::CheckEndpointOriginRequest>,
    ) -> Result<Response<pb::CheckEndpointOriginResponse>, Status> {
        let id = gate::request_id(req.metadata());
        self.endpoint_origin(req.into_inner())
            .await
            .map(Response::new)
            .map_err(|e| e.into_status(&id))
    }
    async fn get_endpoint_challenge(
        &self,
        req: Request<pb::GetEndpointChallengeRequest>,
    ) -> Result<Response<pb::GetEndpointChallengeResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let ip = gate::client_ip(&req, self.config.edge_secret.as_deref());
        self.endpoint_challenge(ip, req.into_inner())
            .await
            .map(Response::new)
            .map_err(|e| e.into_status(&id))
    }
    async fn get_hosted_theme(
        &self,
        req: Request<pb::GetHostedThemeRequest>,
    ) -> Result<Response<pb::GetHostedThemeResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let reply = self.theme(&req.into_inner().short_id).await;
        reply.map(Response::new).map_err(|e| e.into_status(&id))
    }
    async fn get_hosted_logo(
        &self,
        req: Request<pb::GetHostedLogoRequest>,
    ) -> Result<Response<pb::GetHostedLogoResponse>, Status> {
        let id = gate::request_id(req.metadata());
        let reply = self.logo(&req.into_inner().short_id).await;
        reply.map(Response::new).map_err(|e| e.into_status(&id))
    }
}
