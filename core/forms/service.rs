//! gRPC adapter of the forms domain: pb messages in, domain calls, pb messages out.

pub(crate) use super::convert::form_to_pb;
use super::convert::{change_from_pb, fields_from_pb, status_from_pb, translations_from_pb};
use super::logo::{self, theme_from_pb};
use super::{Form, FormFilter, FormStatus, NewForm, now_millis, store};
use crate::accounts::Scope;
use crate::audit::{self, Outcome::Done};
use crate::db::lanes::Lanes;
use crate::db::shared::Shared;
use crate::error::CoreError;
use crate::files::store::FileStore;
use crate::gate::{Ctx, Gate};
use crate::idempotency;
use crate::pb::{self, convert, forms_service_server::FormsService};
use crate::rpc::parse_id;
use crate::webhooks::outbox;
use serde_json::json;
use sqlx::PgPool;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// The FormsService of the core.
#[derive(Clone)]
pub(crate) struct Forms {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
    /// Where the list's reads run (`db::replicas`).
    pub(crate) replicas: crate::db::Replicas,
    pub(crate) lanes: Lanes,
    /// Reads of one form shared by the requests that arrive together (by form and
    /// account).
    pub(crate) reads: Shared<(Uuid, Uuid), Option<pb::Form>>,
    pub(crate) idempotency_ttl: std::time::Duration,
    pub(crate) file_store: FileStore,
}

impl Forms {
    async fn list(
        &self,
        ctx: Ctx,
        req: pb::ListFormsRequest,
    ) -> Result<pb::ListFormsResponse, CoreError> {
        let page = crate::paging::Page::new(req.page, req.per_page)?;
        let filter = FormFilter {
            status: status_from_pb(req.status)?,
            search: Some(req.search).filter(|s| !s.is_empty()),
        };
        let (account_id, filter) = (ctx.caller.account_id, &filter);
        let (forms, total) = self
            .replicas
            .read(|pool| async move { store::list(&pool, account_id, filter, page).await })
            .await?;
        Ok(pb::ListFormsResponse {
            forms: forms.into_iter().map(form_to_pb).collect(),
            pagination: Some(page.pagination(total)),
        })
    }

    async fn get(
        &self,
        ctx: Ctx,
        req: pb::GetFormRequest,
    ) -> Result<pb::GetFormResponse, CoreError> {
        let id = parse_id(&req.id, "form")?;
        let account_id = ctx.caller.account_id;
        // Clients reading the form together share a read sent after each arrived.
        let form = self
            .reads
            .read((id, account_id), || async {
                let mut lane = self.lanes.take().await?;
                let form = match store::get(&mut *lane, account_id, id).await {
                    Ok(form) => Some(form_to_pb(form)),
                    Err(CoreError::NotFound(_)) => None,
                    Err(error) => return Err(error),
                };
                // A form read to its end, found or not, leaves nothing pending.
                lane.finish();
                Ok(form)
            })
            .await?
            .ok_or(CoreError::NotFound("form"))?;
        Ok(pb::GetFormResponse { form: Some(form) })
    }

    async fn create(
        &self,
        ctx: Ctx,
        req: pb::CreateFormRequest,
    ) -> Result<(pb::CreateFormResponse, bool), CoreError> {
        let account_id = ctx.caller.account_id;
        let key = ctx.idempotency_key.as_deref();
        // Validation first, with no transaction open and no row locked.
        let new = NewForm {
            title: req.title.clone(),
            description: req.description.clone(),
            fields: fields_from_pb(req.fields.clone())?,
            settings: req
                .settings
                .as_ref()
                .map(convert::struct_to_object)
                .unwrap_or_default(),
            languages: super::Languages {
                default: req
                    .default_language
                    .clone()
                    .unwrap_or_else(|| super::languages::DEFAULT.to_owned()),
                translations: translations_from_pb(req.translations.as_ref())?,
            },
            theme: req.theme.clone().map(theme_from_pb),
            retention_days: req.retention_days,
        };
        let mut form = new.into_form(account_id, now_millis())?;
        let mut tx = self.pool.begin().await?;
        let ttl = self.idempotency_ttl;
        if let Some(replay) =
            idempotency::start(&mut tx, account_id, key, "CreateForm", &req, ttl).await?
        {
            return Ok((replay, true));
        }
        store::insert(&mut tx, &mut form).await?;
        let target = audit::Target::form(form.id);
        audit::record(&mut tx, &ctx.actor, "CreateForm", &target, &[], Done).await?;
        let reply = pb::CreateFormResponse {
            form: Some(form_to_pb(form)),
        };
        idempotency::end(&mut tx, account_id, key, &reply).await?;
        tx.commit().await?;
        Ok((reply, false))
    }

    async fn update(
        &self,
        ctx: Ctx,
        req: pb::UpdateFormRequest,
    ) -> Result<pb::UpdateFormResponse, CoreError> {
        let id = parse_id(&req.id, "form")?;
        let change = change_from_pb(req)?;
        let audited = change.names();
        let mut changed = Vec::new();
        if change.fields.is_some() {
            changed.push("fields");
        }
        if change.settings.is_some() {
            changed.push("settings");
        }
        if change.theme.is_some() {
            changed.push("theme");
        }
        let now = now_millis();
        let mut tx = self.pool.begin().await?;
        let mut form = store::get_for_update(&mut tx, ctx.caller.account_id, id).await?;
        let was_published = form.status == FormStatus::Published;
        let fields_before = form.fields.clone();
        let clears_theme = matches!(change.theme, Some(None));
        change.apply(&mut form, now)?;
        store::save(&mut tx, &form).await?;
        // A cleared theme takes its logo with it.
        let logo_object = if clears_theme {
            logo::remove(&mut tx, form.id).await?
        } else {
            None
        };
        if form.fields != fields_before {
            // The stored summary was tallied with the old fields (kinds, pages).
            crate::responses::store::summary::reset(&mut tx, form.id).await?;
        }
        // Events commit with the change (transactional outbox).
        if !changed.is_empty() {
            let mut data = json!({
                "formId": form.id,
                "title": form.title,
                "status": form.status.as_str(),
                "changed": changed,
                "fields": form.fields,
                "settings": form.settings,
                "updatedAt": convert::rfc3339(now),
            });
            // The theme only when it changed: the payload of other changes stays as it was.
            if changed.contains(&"theme") {
                data["theme"] = json!(form.theme);
            }
            outbox::enqueue(&mut tx, event("form.updated", &form, data, now)).await?;
        }
        if !was_published && form.status == FormStatus::Published {
            let data = json!({
                "formId": form.id,
                "title": form.title,
                "shortId": form.short_id,
                "publishedAt": form.published_at.map(convert::rfc3339),
            });
            outbox::enqueue(&mut tx, event("form.published", &form, data, now)).await?;
        }
        let target = audit::Target::form(form.id);
        audit::record(&mut tx, &ctx.actor, "UpdateForm", &target, &audited, Done).await?;
        tx.commit().await?;
        self.file_store
            .remove(logo_object.into_iter().collect())
            .await;
        Ok(pb::UpdateFormResponse {
            form: Some(form_to_pb(form)),
        })
    }

    async fn delete(
        &self,
        ctx: Ctx,
        req: pb::DeleteFormRequest,
    ) -> Result<pb::DeleteFormResponse, CoreError> {
        let id = parse_id(&req.id, "form")?;
        let now = now_millis();
        let mut tx = self.pool.begin().await?;
        let form = store::get_for_update(&mut tx, ctx.caller.account_id, id).await?;
        // Enqueued before the delete removes the subscriptions, which are retired (kept
        // until their pending deliveries are settled) rather than forgotten.
        let data =
            json!({"formId": form.id, "title": form.title, "deletedAt": convert::rfc3339(now)});
        outbox::enqueue(&mut tx, event("form.deleted", &form, data, now)).await?;
        crate::webhooks::store::retire_form_webhooks(&mut tx, id).await?;
        crate::webhooks::store::remove_form_answers(&mut tx, id).await?;
        let mut objects = FileStore::keys_of(&mut tx, id, None).await?;
        objects.extend(logo::remove(&mut tx, id).await?);
        store::delete(&mut tx, ctx.caller.account_id, id).await?;
        audit::record(
            &mut tx,
            &ctx.actor,
            "DeleteForm",
            &audit::Target::form(id),
            &[],
            Done,
        )
        .await?;
        tx.commit().await?;
        self.file_store.remove(objects).await;
        Ok(pb::DeleteFormResponse {})
    }
}

impl Forms {
    /// Sets or removes a form's logo, naming it in the form's theme (a form without a
    /// theme gets one with only the logo).
    async fn set_logo(
        &self,
        ctx: Ctx,
        req: pb::SetFormLogoRequest,
    ) -> Result<pb::SetFormLogoResponse, CoreError> {
        let id = parse_id(&req.id, "form")?;
        let now = now_millis();
        let mut tx = self.pool.begin().await?;
        // The form first: another account's form is not found, whatever was sent.
        let mut form = store::get_for_update(&mut tx, ctx.caller.account_id, id).await?;
        if !req.remove {
            super::theme::logo_type(&req.content)?;
        }
        let mut theme = form.theme.take().unwrap_or_default();
        let replaced = if req.remove {
            theme.logo = None;
            logo::remove(&mut tx, id).await?
        } else {
            let stored = logo::put(&self.file_store, &mut tx, id, req.content).await?;
            theme.logo = Some(stored.logo);
            stored.replaced
        };
        form.theme = (theme != super::theme::Theme::default()).then_some(theme);
        form.updated_at = now;
        store::save(&mut tx, &form).await?;
        let data = json!({
            "formId": form.id,
            "title": form.title,
            "status": form.status.as_str(),
            "changed": ["theme"],
            "theme": form.theme,
            "updatedAt": convert::rfc3339(now),
        });
        outbox::enqueue(&mut tx, event("form.updated", &form, data, now)).await?;
        let target = audit::Target::form(id);
        audit::record(&mut tx, &ctx.actor, "SetFormLogo", &target, &["logo"], Done).await?;
        tx.commit().await?;
        self.file_store.remove(replaced.into_iter().collect()).await;
        Ok(pb::SetFormLogoResponse {
            form: Some(form_to_pb(form)),
        })
    }
}

fn event(
    name: &'static str,
    form: &Form,
    data: serde_json::Value,
    at: chrono::DateTime<chrono::Utc>,
) -> outbox::Event<'static> {
    outbox::Event {
        name,
        account_id: form.account_id,
        form_id: form.id,
        quiz_id: None,
        response_id: None,
        data,
        at,
    }
}

#[tonic::async_trait]
impl FormsService for Forms {
    async fn list_forms(
        &self,
        req: Request<pb::ListFormsRequest>,
    ) -> Result<Response<pb::ListFormsResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.list(ctx, m))
            .await
    }
    async fn get_form(
        &self,
        req: Request<pb::GetFormRequest>,
    ) -> Result<Response<pb::GetFormResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.get(ctx, m))
            .await
    }
    async fn create_form(
        &self,
        req: Request<pb::CreateFormRequest>,
    ) -> Result<Response<pb::CreateFormResponse>, Status> {
        self.gate
            .call_replayable(req, Some(Scope::Write), |ctx, m| self.create(ctx, m))
            .await
    }
    async fn update_form(
        &self,
        req: Request<pb::UpdateFormRequest>,
    ) -> Result<Response<pb::UpdateFormResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Write), |ctx, m| self.update(ctx, m))
            .await
    }
    async fn delete_form(
        &self,
        req: Request<pb::DeleteFormRequest>,
    ) -> Result<Response<pb::DeleteFormResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, m| self.delete(ctx, m))
            .await
    }
    async fn set_form_logo(
        &self,
        req: Request<pb::SetFormLogoRequest>,
    ) -> Result<Response<pb::SetFormLogoResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Write), |ctx, m| self.set_logo(ctx, m))
            .await
    }
}
