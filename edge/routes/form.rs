//! `/forms` and `/forms/{id}`: the form resource, JSON shapes of SPEC onto FormsService calls.

use crate::body::{JsonBody, Patch, PathParams, QueryParams, present};
use crate::call::Call;
use crate::routes::timestamp_json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, convert};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A form in the SPEC shape.
pub fn form_json(form: pb::Form) -> Value {
    let status = pb::FormStatus::try_from(form.status).map_or("draft", status_name);
    json!({
        "id": form.id,
        "title": form.title,
        "description": form.description,
        "status": status,
        "fields": form.fields.into_iter().map(field_json).collect::<Vec<_>>(),
        "settings": form.settings.as_ref().map(convert::struct_to_object).unwrap_or_default(),
        "short_id": form.short_id,
        "created_at": timestamp_json(form.created_at.as_ref()),
        "updated_at": timestamp_json(form.updated_at.as_ref()),
        "published_at": timestamp_json(form.published_at.as_ref()),
    })
}

fn field_json(field: pb::FormField) -> Value {
    let mut out = json!({
        "id": field.id,
        "type": field.r#type,
        "label": field.label,
        "required": field.required,
    });
    if let Some(placeholder) = field.placeholder {
        out["placeholder"] = json!(placeholder);
    }
    if !field.allowed_types.is_empty() {
        out["allowed_types"] = json!(field.allowed_types);
    }
    if let Some(mb) = field.max_size_mb {
        out["max_size_mb"] = convert::number_to_json(mb);
    }
    if let Some(correct) = &field.correct_answer {
        out["correct_answer"] = convert::value_to_json(correct);
    }
    if let Some(points) = field.points {
        out["points"] = json!(points);
    }
    out
}

fn status_name(status: pb::FormStatus) -> &'static str {
    match status {
        pb::FormStatus::Published => "published",
        pb::FormStatus::Archived => "archived",
        pb::FormStatus::Draft | pb::FormStatus::Unspecified => "draft",
    }
}

/// A form status as the API names it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StatusName {
    Draft,
    Published,
    Archived,
}

impl From<StatusName> for pb::FormStatus {
    fn from(status: StatusName) -> Self {
        match status {
            StatusName::Draft => Self::Draft,
            StatusName::Published => Self::Published,
            StatusName::Archived => Self::Archived,
        }
    }
}

/// A status from a query string, with the same names (and message) as in a body.
fn parse_status(raw: &str) -> Result<pb::FormStatus, String> {
    use serde::de::IntoDeserializer;
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        raw.into_deserializer();
    StatusName::deserialize(name)
        .map(pb::FormStatus::from)
        .map_err(|e| format!("status: {e}"))
}

/// A field definition as sent in `fields`. Everything optional: which properties a field
/// needs, and which types exist, are the core's rules.
#[derive(Deserialize)]
struct FieldBody {
    /// Ignored on create; names the field to keep on update.
    id: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    label: Option<String>,
    required: Option<bool>,
    placeholder: Option<String>,
    allowed_types: Option<Vec<String>>,
    max_size_mb: Option<f64>,
    /// Any JSON; a `null` sent is passed on as a null value, not as "no answer".
    #[serde(default, deserialize_with = "present")]
    correct_answer: Option<Value>,
    points: Option<i32>,
}

impl From<FieldBody> for pb::FormField {
    fn from(f: FieldBody) -> Self {
        Self {
            id: f.id.unwrap_or_default(),
            r#type: f.kind.unwrap_or_default(),
            label: f.label.unwrap_or_default(),
            required: f.required.unwrap_or_default(),
            placeholder: f.placeholder,
            allowed_types: f.allowed_types.unwrap_or_default(),
            max_size_mb: f.max_size_mb,
            correct_answer: f.correct_answer.as_ref().map(convert::json_to_value),
            points: f.points,
        }
    }
}

fn fields_pb(fields: Vec<FieldBody>) -> Vec<pb::FormField> {
    fields.into_iter().map(pb::FormField::from).collect()
}

/// The body of `POST /forms`. A missing or null title is left to the core, which
/// requires one; `fields` and `settings` may be left out but not sent as null.
#[derive(Deserialize)]
pub struct CreateFormBody {
    title: Option<String>,
    description: Option<String>,
    #[serde(default, deserialize_with = "present")]
    fields: Option<Vec<FieldBody>>,
    #[serde(default, deserialize_with = "present")]
    settings: Option<Map<String, Value>>,
}

fn create_request(body: CreateFormBody) -> pb::CreateFormRequest {
    pb::CreateFormRequest {
        title: body.title.unwrap_or_default(),
        description: body.description,
        fields: body.fields.map(fields_pb).unwrap_or_default(),
        settings: body.settings.as_ref().map(convert::object_to_struct),
    }
}

/// The body of `PUT /forms/{id}`: a partial update, each property absent (kept), or
/// sent. `description: null` clears the description; `title: null` asks for an empty
/// title, which the core refuses like any other; `fields`, `settings` and `status`
/// cannot be null.
#[derive(Deserialize)]
pub struct UpdateFormBody {
    #[serde(default)]
    title: Patch<String>,
    #[serde(default)]
    description: Patch<String>,
    #[serde(default, deserialize_with = "present")]
    fields: Option<Vec<FieldBody>>,
    #[serde(default, deserialize_with = "present")]
    settings: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "present")]
    status: Option<StatusName>,
}

/// A partial update: the mask names exactly the properties present in the body.
fn update_request(id: String, body: UpdateFormBody) -> pb::UpdateFormRequest {
    let mut form = pb::Form::default();
    let mut paths = Vec::new();
    if let Some(title) = body.title.into_change() {
        form.title = title.unwrap_or_default();
        paths.push("title");
    }
    if let Some(description) = body.description.into_change() {
        form.description = description;
        paths.push("description");
    }
    if let Some(fields) = body.fields {
        form.fields = fields_pb(fields);
        paths.push("fields");
    }
    if let Some(settings) = body.settings {
        form.settings = Some(convert::object_to_struct(&settings));
        paths.push("settings");
    }
    if let Some(status) = body.status {
        form.status = pb::FormStatus::from(status).into();
        paths.push("status");
    }
    pb::UpdateFormRequest {
        id,
        form: Some(form),
        update_mask: Some(prost_types::FieldMask {
            paths: paths.into_iter().map(str::to_owned).collect(),
        }),
    }
}

fn list_request(query: &QueryParams) -> Result<pb::ListFormsRequest, String> {
    let status = match query.get("status") {
        None | Some("") | Some("all") => pb::FormStatus::Unspecified,
        Some(raw) => parse_status(raw)?,
    };
    Ok(pb::ListFormsRequest {
        page: query.int("page")?,
        per_page: query.int("per_page")?,
        status: status.into(),
        search: query.get("search").unwrap_or_default().to_owned(),
    })
}

pub async fn list(
    State(state): State<AppState>,
    call: Call,
    query: QueryParams,
) -> Result<Response, Response> {
    let request = call.valid(&state, list_request(&query)).await?;
    let result = state.forms().list_forms(call.request(request)).await;
    Ok(call.reply(result, StatusCode::OK, |r| {
        json!({
            "forms": r.forms.into_iter().map(form_json).collect::<Vec<_>>(),
            "pagination": r.pagination.map(crate::routes::page_json),
        })
    }))
}

pub async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams(id): PathParams<String>,
) -> Response {
    let result = state
        .forms()
        .get_form(call.request(pb::GetFormRequest { id }))
        .await;
    call.reply(
        result,
        StatusCode::OK,
        |r| json!({"form": r.form.map(form_json)}),
    )
}

pub async fn create(
    State(state): State<AppState>,
    call: Call,
    JsonBody(body): JsonBody<CreateFormBody>,
) -> Response {
    let request = call.request(create_request(body));
    let result = state.forms().create_form(request).await;
    call.reply(
        result,
        StatusCode::CREATED,
        |r| json!({"form": r.form.map(form_json)}),
    )
}

pub async fn update(
    State(state): State<AppState>,
    call: Call,
    PathParams(id): PathParams<String>,
    JsonBody(body): JsonBody<UpdateFormBody>,
) -> Response {
    let request = call.request(update_request(id, body));
    let result = state.forms().update_form(request).await;
    call.reply(
        result,
        StatusCode::OK,
        |r| json!({"form": r.form.map(form_json)}),
    )
}

pub async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams(id): PathParams<String>,
) -> Response {
    let result = state
        .forms()
        .delete_form(call.request(pb::DeleteFormRequest { id }))
        .await;
    call.reply(result, StatusCode::NO_CONTENT, |_| Value::Null)
}
