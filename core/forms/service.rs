//! gRPC adapter of the forms domain: pb messages in, domain calls, pb messages out.

use super::logo::{self, theme_from_pb, theme_to_pb};
use super::{FieldInput, Form, FormChange, FormFilter, FormStatus, NewForm, now_millis, store};
use crate::accounts::Scope;
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

pub(crate) fn status_to_pb(status: FormStatus) -> pb::FormStatus {
    match status {
        FormStatus::Draft => pb::FormStatus::Draft,
        FormStatus::Published => pb::FormStatus::Published,
        FormStatus::Archived => pb::FormStatus::Archived,
    }
}

fn status_from_pb(value: i32) -> Result<Option<FormStatus>, CoreError> {
    match pb::FormStatus::try_from(value) {
        Ok(pb::FormStatus::Unspecified) => Ok(None),
        Ok(pb::FormStatus::Draft) => Ok(Some(FormStatus::Draft)),
        Ok(pb::FormStatus::Published) => Ok(Some(FormStatus::Published)),
        Ok(pb::FormStatus::Archived) => Ok(Some(FormStatus::Archived)),
        Err(_) => Err(CoreError::validation(
            "status must be one of draft, published, archived",
        )),
    }
}

pub(crate) fn form_to_pb(form: Form) -> pb::Form {
    pb::Form {
        id: form.id.to_string(),
        title: form.title,
        description: form.description,
        status: status_to_pb(form.status).into(),
        fields: form
            .fields
            .into_iter()
            .map(|f| pb::FormField {
                id: f.id.to_string(),
                r#type: f.kind.as_str().to_owned(),
                label: f.label,
                required: f.required,
                placeholder: f.placeholder,
                allowed_types: f.allowed_types,
                max_size_mb: f.max_size_mb,
                correct_answer: f.correct_answer.as_ref().map(convert::json_to_value),
                points: f.points,
                options: f
                    .options
                    .into_iter()
                    .map(|o| pb::FieldOption {
                        id: o.id,
                        label: o.label,
                    })
                    .collect(),
                min_selected: f.min_selected,
                max_selected: f.max_selected,
                allow_other: f.allow_other,
                min: f.min.as_ref().map(convert::json_to_value),
                max: f.max.as_ref().map(convert::json_to_value),
                min_label: f.min_label,
                max_label: f.max_label,
                r#ref: f.r#ref,
                show_if: f
                    .show_if
                    .into_iter()
                    .map(|c| pb::Condition {
                        field: c.field.to_string(),
                        op: c.op.as_str().to_owned(),
                        value: c.value.as_ref().map(convert::json_to_value),
                    })
                    .collect(),
            })
            .collect(),
        settings: Some(convert::object_to_struct(&form.settings)),
        default_language: Some(form.languages.default.clone()),
        translations: Some(translations_to_pb(&form.languages)),
        theme: form.theme.map(theme_to_pb),
        short_id: form.short_id,
        created_at: Some(convert::timestamp(form.created_at)),
        updated_at: Some(convert::timestamp(form.updated_at)),
        published_at: form.published_at.map(convert::timestamp),
    }
}

/// A form's translations as the `translations` Struct of its pb message.
fn translations_to_pb(languages: &super::Languages) -> prost_types::Struct {
    let value = serde_json::to_value(&languages.translations).unwrap_or_default();
    match value {
        serde_json::Value::Object(map) => convert::object_to_struct(&map),
        _ => prost_types::Struct::default(),
    }
}

/// The translations of a request's Struct (absent: none).
fn translations_from_pb(
    value: Option<&prost_types::Struct>,
) -> Result<std::collections::BTreeMap<String, super::Translation>, CoreError> {
    let object = value.map(convert::struct_to_object).unwrap_or_default();
    super::languages::translations_from_json(serde_json::Value::Object(object))
}

fn field_from_pb(i: usize, f: pb::FormField) -> Result<FieldInput, CoreError> {
    let id = if f.id.is_empty() {
        None
    } else {
        Some(
            Uuid::parse_str(&f.id)
                .map_err(|_| CoreError::Validation(format!("fields[{i}].id must be a UUID")))?,
        )
    };
    Ok(FieldInput {
        id,
        kind: f.r#type,
        label: f.label,
        required: f.required,
        placeholder: f.placeholder,
        allowed_types: f.allowed_types,
        max_size_mb: f.max_size_mb,
        correct_answer: f.correct_answer.as_ref().map(convert::value_to_json),
        points: f.points,
        options: f
            .options
            .into_iter()
            .map(|o| super::FieldOption {
                id: o.id,
                label: o.label,
            })
            .collect(),
        min_selected: f.min_selected,
        max_selected: f.max_selected,
        allow_other: f.allow_other,
        min: f.min.as_ref().map(convert::value_to_json),
        max: f.max.as_ref().map(convert::value_to_json),
        min_label: f.min_label,
        max_label: f.max_label,
        r#ref: f.r#ref,
        show_if: f
            .show_if
            .into_iter()
            .map(|c| super::logic::ConditionInput {
                field: c.field,
                op: c.op,
                value: c.value.as_ref().map(convert::value_to_json),
            })
            .collect(),
        alias: None,
    })
}

fn fields_from_pb(fields: Vec<pb::FormField>) -> Result<Vec<FieldInput>, CoreError> {
    fields
        .into_iter()
        .enumerate()
        .map(|(i, f)| field_from_pb(i, f))
        .collect()
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
        let pool = &self.replicas.read_pool().await;
        let (forms, total) = store::list(pool, ctx.caller.account_id, &filter, page).await?;
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

/// Reads the update mask into a domain change.
fn change_from_pb(req: pb::UpdateFormRequest) -> Result<FormChange, CoreError> {
    let mut f = req.form.unwrap_or_default();
    let mut change = FormChange::default();
    for path in req.update_mask.map(|m| m.paths).unwrap_or_default() {
        match path.as_str() {
            "title" => change.title = Some(std::mem::take(&mut f.title)),
            "description" => change.description = Some(f.description.take()),
            "fields" => change.fields = Some(fields_from_pb(std::mem::take(&mut f.fields))?),
            "settings" => {
                change.settings = Some(
                    f.settings
                        .as_ref()
                        .map(convert::struct_to_object)
                        .unwrap_or_default(),
                )
            }
            "default_language" => {
                change.default_language = Some(
                    f.default_language
                        .take()
                        .unwrap_or_else(|| super::languages::DEFAULT.to_owned()),
                );
            }
            "translations" => {
                change.translations = Some(translations_from_pb(f.translations.as_ref())?);
            }
            "theme" => change.theme = Some(f.theme.take().map(theme_from_pb)),
            "status" => {
                change.status = Some(status_from_pb(f.status)?.ok_or_else(|| {
                    CoreError::validation("status must be one of draft, published, archived")
                })?)
            }
            other => {
                return Err(CoreError::Validation(format!(
                    "{other:?} cannot be updated; updatable: title, description, fields, settings, status, default_language, translations, theme"
                )));
            }
        }
    }
    Ok(change)
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
