//! `/forms` and `/forms/{id}`: the form resource, JSON shapes of SPEC onto FormsService calls.

use crate::body::{JsonObject, PathParams, QueryParams};
use crate::call::Call;
use crate::routes::timestamp_json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, convert};
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

fn parse_status(raw: &str) -> Result<pb::FormStatus, String> {
    match raw {
        "draft" => Ok(pb::FormStatus::Draft),
        "published" => Ok(pb::FormStatus::Published),
        "archived" => Ok(pb::FormStatus::Archived),
        _ => Err(format!(
            "status must be one of draft, published, archived, got {raw:?}"
        )),
    }
}

fn string(body: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{key} must be a string")),
    }
}

fn object(body: &Map<String, Value>, key: &str) -> Result<Option<prost_types::Struct>, String> {
    match body.get(key) {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(convert::object_to_struct(map))),
        Some(_) => Err(format!("{key} must be an object")),
    }
}

fn fields(body: &Map<String, Value>) -> Result<Option<Vec<pb::FormField>>, String> {
    let Some(value) = body.get("fields") else {
        return Ok(None);
    };
    let Value::Array(items) = value else {
        return Err("fields must be an array".into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| field_from_json(i, item))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn field_from_json(i: usize, item: &Value) -> Result<pb::FormField, String> {
    let Value::Object(f) = item else {
        return Err(format!("fields[{i}] must be an object"));
    };
    let at = |e: String| format!("fields[{i}].{e}");
    let required = match f.get("required") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(at("required must be true or false".into())),
    };
    let allowed_types = match f.get("allowed_types") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| at("allowed_types must be an array of strings".into()))?,
        Some(_) => return Err(at("allowed_types must be an array of strings".into())),
    };
    let max_size_mb = match f.get("max_size_mb") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(_) => return Err(at("max_size_mb must be a number".into())),
    };
    Ok(pb::FormField {
        id: string(f, "id").map_err(at)?.unwrap_or_default(),
        r#type: string(f, "type").map_err(at)?.unwrap_or_default(),
        label: string(f, "label").map_err(at)?.unwrap_or_default(),
        required,
        placeholder: string(f, "placeholder").map_err(at)?,
        allowed_types,
        max_size_mb,
        correct_answer: f.get("correct_answer").map(convert::json_to_value),
        points: match f.get("points") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| at("points must be an integer".into()))?,
            ),
        },
    })
}

fn create_request(body: &Map<String, Value>) -> Result<pb::CreateFormRequest, String> {
    Ok(pb::CreateFormRequest {
        title: string(body, "title")?.unwrap_or_default(),
        description: string(body, "description")?,
        fields: fields(body)?.unwrap_or_default(),
        settings: object(body, "settings")?,
    })
}

/// A partial update: the mask names exactly the properties present in the body.
fn update_request(id: String, body: &Map<String, Value>) -> Result<pb::UpdateFormRequest, String> {
    let mut form = pb::Form::default();
    let mut paths = Vec::new();
    if body.contains_key("title") {
        form.title = string(body, "title")?.unwrap_or_default();
        paths.push("title");
    }
    if body.contains_key("description") {
        form.description = string(body, "description")?;
        paths.push("description");
    }
    if let Some(fields) = fields(body)? {
        form.fields = fields;
        paths.push("fields");
    }
    if body.contains_key("settings") {
        form.settings = object(body, "settings")?;
        if matches!(body.get("settings"), Some(Value::Null)) {
            return Err("settings must be an object".into());
        }
        paths.push("settings");
    }
    if let Some(status) = body.get("status") {
        let raw = status.as_str().ok_or("status must be a string")?;
        form.status = parse_status(raw)?.into();
        paths.push("status");
    }
    Ok(pb::UpdateFormRequest {
        id,
        form: Some(form),
        update_mask: Some(prost_types::FieldMask {
            paths: paths.into_iter().map(str::to_owned).collect(),
        }),
    })
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
    JsonObject(body): JsonObject,
) -> Result<Response, Response> {
    let request = call.valid(&state, create_request(&body)).await?;
    let result = state.forms().create_form(call.request(request)).await;
    Ok(call.reply(
        result,
        StatusCode::CREATED,
        |r| json!({"form": r.form.map(form_json)}),
    ))
}

pub async fn update(
    State(state): State<AppState>,
    call: Call,
    PathParams(id): PathParams<String>,
    JsonObject(body): JsonObject,
) -> Result<Response, Response> {
    let request = call.valid(&state, update_request(id, &body)).await?;
    let result = state.forms().update_form(call.request(request)).await;
    Ok(call.reply(
        result,
        StatusCode::OK,
        |r| json!({"form": r.form.map(form_json)}),
    ))
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
