//! `/forms` and `/forms/{id}`: the form resource, JSON shapes of SPEC onto FormsService calls.
//! The shapes it shows live in `shape`, the bodies it takes in `body`.

mod body;
mod shape;

use crate::http::body::JsonBody;
use crate::http::call::{Call, Success};
use crate::http::params::{FormId, IdempotencyKey, PathParams};
use crate::http::state::AppState;
use crate::rest::pagination::Page;
use crate::rest::query::{self, Query};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub(crate) use body::{CreateFormBody, UpdateFormBody};
use body::{create_request, update_request};
pub(crate) use shape::*;

/// The query of `GET /forms`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListFormsQuery {
    /// Page number.
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, default = 1)]
    page: Option<i32>,
    /// Results per page (above 100 is read as 100).
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, maximum = 100, default = 25)]
    per_page: Option<i32>,
    /// Only forms of this status (default `all`).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    status: Option<StatusFilter>,
    /// Case-insensitive substring of the title.
    search: Option<String>,
}

/// A status filter: a status, or `all`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    All,
    Draft,
    Published,
    Archived,
}

impl From<StatusFilter> for pb::FormStatus {
    fn from(filter: StatusFilter) -> Self {
        match filter {
            StatusFilter::All => Self::Unspecified,
            StatusFilter::Draft => Self::Draft,
            StatusFilter::Published => Self::Published,
            StatusFilter::Archived => Self::Archived,
        }
    }
}

/// `data` of a form list.
#[derive(Serialize, ToSchema)]
pub(crate) struct FormList {
    forms: Vec<Form>,
    pagination: Option<Page>,
}

/// `data` of a reply with one form.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneForm {
    form: Option<Form>,
}

impl OneForm {
    pub(crate) fn new(form: Option<pb::Form>) -> Self {
        Self {
            form: form.map(Form::from),
        }
    }
}

fn list_request(query: ListFormsQuery) -> pb::ListFormsRequest {
    let status = query.status.map_or(pb::FormStatus::Unspecified, Into::into);
    pb::ListFormsRequest {
        page: query.page,
        per_page: query.per_page,
        status: status.into(),
        search: query.search.unwrap_or_default(),
    }
}

/// List forms
#[utoipa::path(get, path = "/forms", operation_id = "listForms", tag = "forms",
    description = "Scope: read. The caller's forms, newest first, a page at a time.",
    params(ListFormsQuery),
    responses((status = 200, description = "A page of forms", body = Success<FormList>)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    call: Call,
    Query(query): Query<ListFormsQuery>,
) -> Response {
    let request = call.request(list_request(query));
    let result = state.forms().list_forms(request).await;
    call.reply(result, StatusCode::OK, |r| FormList {
        forms: r.forms.into_iter().map(Form::from).collect(),
        pagination: r.pagination.map(Page::from),
    })
}

/// Get a form
#[utoipa::path(get, path = "/forms/{id}", operation_id = "getForm", tag = "forms",
    description = "Scope: read. The form with its field definitions.",
    params(FormId),
    responses((status = 200, description = "The form", body = Success<OneForm>)))]
pub(crate) async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
) -> Response {
    let result = state
        .forms()
        .get_form(call.request(pb::GetFormRequest { id }))
        .await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}

/// Create a form
#[utoipa::path(post, path = "/forms", operation_id = "createForm", tag = "forms",
    description = "Scope: write. The new form is a draft; the service assigns its id, \
        short_id, timestamps and each field's id. Idempotent with an Idempotency-Key.",
    params(IdempotencyKey),
    request_body = CreateFormBody,
    responses((status = 201, description = "The form created (or, with \
        Idempotent-Replayed: true, the reply to the first request with this key)",
        body = Success<OneForm>)))]
pub(crate) async fn create(
    State(state): State<AppState>,
    call: Call,
    JsonBody(body): JsonBody<CreateFormBody>,
) -> Response {
    let request = call.request(create_request(body));
    let result = state.forms().create_form(request).await;
    call.reply(result, StatusCode::CREATED, |r| OneForm::new(r.form))
}

/// Update a form
#[utoipa::path(put, path = "/forms/{id}", operation_id = "updateForm", tag = "forms",
    description = "Scope: write. A partial update: properties left out keep their values.",
    params(FormId),
    request_body = UpdateFormBody,
    responses((status = 200, description = "The form updated", body = Success<OneForm>)))]
pub(crate) async fn update(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
    JsonBody(body): JsonBody<UpdateFormBody>,
) -> Response {
    let request = call.request(update_request(id, body));
    let result = state.forms().update_form(request).await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}

/// Delete a form
#[utoipa::path(delete, path = "/forms/{id}", operation_id = "deleteForm", tag = "forms",
    description = "Scope: admin. Removes the form and all its responses, for good.",
    params(FormId),
    responses((status = 204, description = "Deleted")))]
pub(crate) async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
) -> Response {
    let result = state
        .forms()
        .delete_form(call.request(pb::DeleteFormRequest { id }))
        .await;
    call.reply(result, StatusCode::NO_CONTENT, |_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn list(query: &str) -> Result<pb::ListFormsRequest, String> {
        parse::<ListFormsQuery>(query).map(list_request)
    }

    #[test]
    fn every_parameter_reaches_the_request() {
        assert_eq!(list(""), Ok(pb::ListFormsRequest::default()));
        assert_eq!(
            list("page=3&per_page=%2010%20&status=archived&search=a%26b%20"),
            Ok(pb::ListFormsRequest {
                page: Some(3),
                per_page: Some(10),
                status: pb::FormStatus::Archived.into(),
                search: "a&b ".to_owned(),
            })
        );
    }

    #[test]
    fn all_and_an_empty_status_are_every_status() {
        for (status, expected) in [
            ("", pb::FormStatus::Unspecified),
            ("all", pb::FormStatus::Unspecified),
            ("draft", pb::FormStatus::Draft),
            ("published", pb::FormStatus::Published),
            ("archived", pb::FormStatus::Archived),
        ] {
            let request = list(&format!("status={status}")).expect(status);
            assert_eq!(request.status(), expected, "{status}");
        }
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_parameter() {
        query::assert_refused::<ListFormsQuery>(&[
            ("page=", r#"page must be an integer, got """#),
            ("page=-1%2E0", r#"page must be an integer, got "-1.0""#),
            ("per_page=2.0", r#"per_page must be an integer, got "2.0""#),
            (
                "status=PUBLISHED",
                r#"status must be all, draft, published or archived, got "PUBLISHED""#,
            ),
            (
                "status=draft,published",
                r#"status must be all, draft, published or archived, got "draft,published""#,
            ),
        ]);
    }
}
